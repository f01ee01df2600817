package resolvers

import (
	"slices"
	"sort"
	"strings"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/store"
)

// typeShortcuts is toncenter's action versioning (supported_action_types):
// a client names the types it can show, or a shortcut for a set of them,
// so that a server that learns new types does not hand old clients actions
// they cannot render. Entries are toncenter's type names or other
// shortcuts (expanded recursively). This table is the only copy: the
// docs point here.
var typeShortcuts = map[string][]string{
	"v1": actions.FirstVersion(),
	"v2": {"v1", "multisig_create_order", "multisig_approve", "multisig_execute", "vesting_send_message",
		"vesting_add_whitelist", "evaa_supply", "evaa_withdraw", "evaa_liquidate", "jvault_stake", "jvault_unstake",
		"jvault_claim", "jvault_unstake_request", "nft_discovery", "tonco_deploy_pool", "coffee_create_vault",
		"coffee_create_pool_creator", "coffee_create_pool", "coffee_mev_protect_hold_funds",
		"coffee_mev_protect_failed_swap", "coffee_staking_claim_rewards", "coffee_staking_deposit",
		"coffee_staking_withdraw", "unknown"},
	"v3": {"v2", "nft.v3", "dns_purchase", "dns_release", "layerzero"},
	"v4": {"v3", "cocoon"},
	// latest also stands for the types of ours that toncenter's table does
	// not name at all (see unversioned).
	"latest":    {"v4"},
	"staking":   {"stake_deposit", "stake_withdrawal", "stake_withdrawal_request"},
	"jettons":   {"jetton_transfer", "jetton_burn", "jetton_mint"},
	"nft":       {"nft_transfer", "nft_mint", "auction_bid"},
	"nft.v3":    {"nft", "nft_put_on_sale", "nft_put_on_auction", "auction_outbid", "nft_cancel_sale", "nft_purchase", "nft_cancel_auction", "nft_finish_auction", "teleitem_start_auction", "teleitem_cancel_auction", "nft_update_sale", "dns_purchase", "dns_release"},
	"dns":       {"change_dns", "delete_dns", "renew_dns", "dns_purchase", "dns_release"},
	"dns.v2":    {"dns", "dns_purchase", "dns_release"},
	"multisig":  {"multisig_create_order", "multisig_approve", "multisig_execute"},
	"vesting":   {"vesting_send_message", "vesting_add_whitelist"},
	"evaa":      {"evaa_supply", "evaa_withdraw", "evaa_liquidate"},
	"jvault":    {"jvault_stake", "jvault_unstake", "jvault_claim", "jvault_unstake_request"},
	"coffee":    {"coffee_create_vault", "coffee_create_pool_creator", "coffee_create_pool", "coffee_mev_protect_hold_funds", "coffee_staking_claim_rewards", "coffee_staking_deposit", "coffee_staking_withdraw"},
	"tgbtc":     {"tgbtc_dkg_log_fallback", "tgbtc_new_key", "tgbtc_new_key_fallback", "tgbtc_burn", "tgbtc_burn_fallback", "tgbtc_mint", "tgbtc_mint_fallback"},
	"layerzero": {"layerzero_send", "layerzero_send_tokens", "layerzero_receive", "layerzero_commit_packet", "layerzero_dvn_verify"},
	"cocoon": {"cocoon_worker_payout", "cocoon_proxy_payout", "cocoon_proxy_charge", "cocoon_client_top_up",
		"cocoon_register_proxy", "cocoon_unregister_proxy", "cocoon_client_register", "cocoon_client_change_secret_hash",
		"cocoon_client_request_refund", "cocoon_grant_refund", "cocoon_client_increase_stake", "cocoon_client_withdraw"},
}

// toncenterNamed is every type name the table holds (toncenter's names);
// unversioned is our types it does not hold, which only "latest" (or
// their own name) asks for: a client on the newest version takes every
// type, one pinned to a version takes only what that version named.
var toncenterNamed, unversioned = func() (map[string]bool, []string) {
	named := map[string]bool{}
	for _, entries := range typeShortcuts {
		for _, e := range entries {
			if _, ok := typeShortcuts[e]; !ok {
				named[e] = true
			}
		}
	}
	var rest []string
	for _, t := range actions.Types() {
		if !named[t.Toncenter] {
			rest = append(rest, t.Name())
		}
	}
	return named, rest
}()

// supportedTypes expands supported_action_types (repeats and commas; type
// names in any spelling action_type takes, and shortcuts) into our type
// names, sorted, v1's always among them; nil when none is given.
func supportedTypes(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	if len(in) > maxFilterValues {
		return nil, apperr.Field("supported_action_types", "at most %d values", maxFilterValues)
	}
	set := map[string]bool{}
	expandShortcut("v1", set)
	for _, v := range in {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if err := addSupported(name, set); err != nil {
				return nil, err
			}
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}

func addSupported(name string, set map[string]bool) error {
	if _, ok := typeShortcuts[name]; ok {
		expandShortcut(name, set)
		return nil
	}
	if t, ok := actions.CanonicalType(name); ok {
		set[t] = true
		return nil
	}
	if toncenterNamed[name] {
		return nil // a toncenter type we do not decode: there is nothing to return
	}
	shortcuts := make([]string, 0, len(typeShortcuts))
	for s := range typeShortcuts {
		shortcuts = append(shortcuts, s)
	}
	slices.Sort(shortcuts)
	return apperr.Field("supported_action_types", "unknown type or shortcut %q; shortcuts: %s; or a type name as action_type takes it",
		apperr.Excerpt(name), strings.Join(shortcuts, ", "))
}

// expandShortcut adds a shortcut's types; the table has no cycles (a test
// walks it), so the recursion ends.
func expandShortcut(name string, set map[string]bool) {
	if name == "latest" {
		for _, t := range unversioned {
			set[t] = true
		}
	}
	for _, e := range typeShortcuts[name] {
		if _, ok := typeShortcuts[e]; ok {
			expandShortcut(e, set)
		} else if t, ok := actions.CanonicalType(e); ok {
			set[t] = true
		}
	}
}

// nestable are the types whose actions have steps (actions.HasSteps):
// toncenter lists the steps of an action of a type newer than its first
// version as that version's types, so that a client pinned to it shows
// those instead (chain.Action.ParentActionID).
var nestable = func() map[string]bool {
	out := map[string]bool{}
	for _, t := range actions.Types() {
		if actions.HasSteps(t.Name()) {
			out[t.Name()] = true
		}
	}
	return out
}()

// nestedRule is toncenter's rule for nested actions given the supported
// types (supportedTypes; nil when none were given): a nested action is
// hidden when one of its ancestors' types is supported. Without supported
// types every type is, so every nested action is hidden: the zero rule.
// Otherwise the hidden ancestors are the supported types that have steps
// (v1's never do), and when those are every type that can have steps the
// rule is the zero one again.
func nestedRule(supported []string) store.NestedRule {
	if supported == nil {
		return store.NestedRule{}
	}
	var hidden []string
	for _, t := range supported {
		if nestable[t] {
			hidden = append(hidden, t)
		}
	}
	if len(hidden) == len(nestable) {
		return store.NestedRule{}
	}
	return store.NestedRule{Show: true, HiddenUnder: hidden}
}
