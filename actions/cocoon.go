package actions

import (
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
)

// Cocoon (Telegram's confidential compute network) pays GPU workers and
// proxies from clients' balances with a root, proxy, worker, client and
// wallet contract. Op codes and layouts are those of its Tolk sources
// (TelegramMessenger/cocoon-contracts, as tongo's abi-tolk/schemas/cocoon
// carries them: imports/messages.tolk).
const (
	cocoonOpExcesses                = 0x2565934c // ReturnExcessesBack{queryId}
	cocoonOpPayout                  = 0xc59a7cd3 // Payout{queryId}
	cocoonOpWorkerProxyRequest      = 0x4d725d2c
	cocoonOpWorkerProxyPayout       = 0x08e7d036 // payload of a WorkerProxyRequest
	cocoonOpClientProxyRequest      = 0x65448ff4
	cocoonOpClientProxyTopUp        = 0x5cfc6b87 // payloads of a ClientProxyRequest
	cocoonOpClientProxyRefund       = 0xc68ebc7b
	cocoonOpClientProxyRefundForce  = 0xf4c354c9
	cocoonOpWorkerPayoutSigned      = 0xa040ad28
	cocoonOpWorkerLastPayoutSigned  = 0xf5f26a36
	cocoonOpClientChargeSigned      = 0xbb63ff93
	cocoonOpClientGrantRefundSigned = 0xefd711e1
	cocoonOpRegisterProxy           = 0x927c7cb5
	cocoonOpUnregisterProxy         = 0x6d49eaf2
	cocoonOpProxyPayoutRequest      = 0x7610e6eb
	cocoonOpClientTopUp             = 0xf172e6c2
	cocoonOpClientRegister          = 0xc45f9f3b
	cocoonOpClientChangeSecretHash  = 0xa9357034
	cocoonOpClientIncreaseStake     = 0x6a1f6a60
	cocoonOpClientWithdraw          = 0xda068e78
	cocoonOpClientRequestRefund     = 0xfafa6cc1
	cocoonOpWalletSendMessage       = 0x9c69f376
)

// CocoonWorkerPayout: a worker contract paid its owner for the tokens it
// served, through its proxy.
type CocoonWorkerPayout struct {
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who submitted the proxy's signed payout request (toncenter calls it proxy_contract)"`
	Worker          Address `json:"worker,omitempty" role:"contract" tc:"source_secondary" doc:"the worker contract"`
	Proxy           Address `json:"proxy,omitempty" doc:"the proxy contract that paid"`
	WorkerOwner     Address `json:"worker_owner,omitempty" role:"recipient" tc:"destination" doc:"the worker's owner, who got the payout"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons paid to the owner"`
	PayoutType      Text    `json:"payout_type,omitempty" tc:"payout_type" doc:"regular, or last (the worker closes)"`
	QueryID         BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	NewTokens       BigInt  `json:"new_tokens,omitempty" tc:"new_tokens" doc:"the worker's token count the proxy signed"`
	ExpectedAddress Address `json:"expected_address,omitempty" tc:"expected_address" doc:"the worker address the proxy signed the request for"`
	WorkerState     *int64  `json:"worker_state,omitempty" tc:"worker_state" doc:"the worker's state after the payout (0 normal, 2 closed)"`
	WorkerTokens    BigInt  `json:"worker_tokens,omitempty" tc:"worker_tokens" doc:"the worker's token count it reported to the proxy"`
	WorkerPart      BigInt  `json:"worker_part,omitempty" doc:"nanotons the worker asked the proxy to pay its owner"`
	ProxyPart       BigInt  `json:"proxy_part,omitempty" doc:"nanotons credited to the proxy"`
	ExcessesTo      Address `json:"excesses_to,omitempty" doc:"where the unused TON went"`
}

// CocoonProxyPayout: a proxy paid its earnings to its owner.
type CocoonProxyPayout struct {
	Sender     Address `json:"sender,omitempty" role:"sender" doc:"who asked for the payout"`
	Proxy      Address `json:"proxy,omitempty" role:"contract" tc:"source" doc:"the proxy contract"`
	ProxyOwner Address `json:"proxy_owner,omitempty" role:"recipient" tc:"destination" doc:"the proxy's owner, who got the payout"`
	ExcessesTo Address `json:"excesses_to,omitempty" tc:"destination_secondary" doc:"where the unused TON went"`
	Amount     BigInt  `json:"amount,omitempty" doc:"nanotons paid to the owner"`
	QueryID    BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
}

// CocoonProxyCharge: a client contract charged for the tokens it used, on
// its proxy's signed request.
type CocoonProxyCharge struct {
	Sender          Address `json:"sender,omitempty" role:"sender" doc:"who submitted the proxy's signed charge"`
	Client          Address `json:"client,omitempty" role:"contract" tc:"source" doc:"the client contract charged (toncenter calls it proxy_contract)"`
	Proxy           Address `json:"proxy,omitempty" role:"recipient" tc:"destination" doc:"the proxy the client reported to (toncenter calls it client_contract)"`
	QueryID         BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	NewTokensUsed   BigInt  `json:"new_tokens_used,omitempty" tc:"new_tokens_used" doc:"the client's used token count the proxy signed"`
	ExpectedAddress Address `json:"expected_address,omitempty" tc:"expected_address" doc:"the client address the proxy signed the charge for"`
	ExcessesTo      Address `json:"excesses_to,omitempty" doc:"where the unused TON went"`
}

// CocoonClientTopUp: TON added to a client contract's balance.
type CocoonClientTopUp struct {
	Sender     Address `json:"sender,omitempty" role:"sender" doc:"who sent the top-up"`
	Client     Address `json:"client,omitempty" role:"recipient" tc:"destination" doc:"the client contract"`
	Proxy      Address `json:"proxy,omitempty" tc:"destination_secondary" doc:"the client's proxy, told of the top-up"`
	Amount     BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons added to the balance"`
	QueryID    BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	ExcessesTo Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's sender)"`
}

// CocoonRegisterProxy: a proxy registered at the Cocoon root.
type CocoonRegisterProxy struct {
	Sender       Address `json:"sender,omitempty" role:"sender" doc:"the root's owner, who registered the proxy"`
	Root         Address `json:"root,omitempty" role:"contract" tc:"destination" doc:"the Cocoon root contract"`
	QueryID      BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	ProxyAddress Text    `json:"proxy_address,omitempty" doc:"the proxy's network address as registered"`
}

// CocoonUnregisterProxy: a proxy removed from the Cocoon root.
type CocoonUnregisterProxy struct {
	Sender  Address `json:"sender,omitempty" role:"sender" doc:"the root's owner"`
	Root    Address `json:"root,omitempty" role:"contract" tc:"destination" doc:"the Cocoon root contract"`
	QueryID BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	Seqno   *int64  `json:"seqno,omitempty" tc:"seqno" doc:"the registration number of the proxy removed"`
}

// CocoonClientRegister: a client contract's owner registered it with its
// proxy.
type CocoonClientRegister struct {
	Owner      Address `json:"owner,omitempty" role:"sender" doc:"the client's owner"`
	Client     Address `json:"client,omitempty" role:"contract" tc:"destination" doc:"the client contract"`
	Proxy      Address `json:"proxy,omitempty" doc:"the client's proxy"`
	QueryID    BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	Nonce      BigInt  `json:"nonce,omitempty" tc:"nonce" doc:"the registration nonce"`
	ExcessesTo Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's owner)"`
}

// CocoonClientChangeSecretHash: a client contract's owner set a new secret
// hash.
type CocoonClientChangeSecretHash struct {
	Owner         Address `json:"owner,omitempty" role:"sender" doc:"the client's owner"`
	Client        Address `json:"client,omitempty" role:"contract" tc:"destination" doc:"the client contract"`
	Proxy         Address `json:"proxy,omitempty" doc:"the client's proxy"`
	QueryID       BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	NewSecretHash Text    `json:"new_secret_hash,omitempty" tc:"new_secret_hash" doc:"the new secret hash, hex without leading zeros"`
	ExcessesTo    Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's owner)"`
}

// CocoonClientRequestRefund: a client contract's owner asked to close it
// and get its balance back.
type CocoonClientRequestRefund struct {
	Owner        Address `json:"owner,omitempty" role:"sender" doc:"the client's owner (its Cocoon wallet when sent through one)"`
	Client       Address `json:"client,omitempty" role:"contract" tc:"destination" doc:"the client contract"`
	Proxy        Address `json:"proxy,omitempty" doc:"the client's proxy"`
	QueryID      BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	ViaWallet    *bool   `json:"via_wallet,omitempty" tc:"via_wallet" doc:"true when the owner's Cocoon wallet sent the request"`
	RefundAmount BigInt  `json:"refund_amount,omitempty" doc:"nanotons the client asked the proxy to pay back, when it refunded at once"`
	Forced       *bool   `json:"forced,omitempty" doc:"true for the forced refund after the closing delay (paid from the proxy's stake)"`
	ExcessesTo   Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's owner)"`
}

// CocoonGrantRefund: a client contract closed and refunded its balance on
// its proxy's signed grant.
type CocoonGrantRefund struct {
	Sender          Address `json:"sender,omitempty" role:"sender" doc:"who submitted the proxy's signed grant"`
	Client          Address `json:"client,omitempty" role:"contract" tc:"source" doc:"the client contract refunded (toncenter calls it proxy_contract)"`
	Proxy           Address `json:"proxy,omitempty" tc:"source_secondary" doc:"the proxy that paid the refund (toncenter calls it client_contract)"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"the client's owner, who got the refund"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"nanotons refunded"`
	QueryID         BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	NewTokensUsed   BigInt  `json:"new_tokens_used,omitempty" tc:"new_tokens_used" doc:"the client's final used token count the proxy signed"`
	ExpectedAddress Address `json:"expected_address,omitempty" tc:"expected_address" doc:"the client address the proxy signed the grant for"`
	ExcessesTo      Address `json:"excesses_to,omitempty" doc:"where the unused TON went"`
}

// CocoonClientIncreaseStake: a client contract's owner raised its stake.
type CocoonClientIncreaseStake struct {
	Owner      Address `json:"owner,omitempty" role:"sender" doc:"the client's owner"`
	Client     Address `json:"client,omitempty" role:"contract" tc:"destination" doc:"the client contract"`
	Proxy      Address `json:"proxy,omitempty" doc:"the client's proxy"`
	QueryID    BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	NewStake   BigInt  `json:"new_stake,omitempty" tc:"new_stake" doc:"the new stake in nanotons (toncenter's amount)"`
	ExcessesTo Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's owner)"`
}

// CocoonClientWithdraw: a client contract's owner withdrew the balance
// above its stake.
type CocoonClientWithdraw struct {
	Owner      Address `json:"owner,omitempty" role:"recipient" doc:"the client's owner, to whom the proxy pays"`
	Client     Address `json:"client,omitempty" role:"contract" tc:"destination" doc:"the client contract"`
	Proxy      Address `json:"proxy,omitempty" doc:"the client's proxy, which pays"`
	Amount     BigInt  `json:"amount,omitempty" tc:"withdraw_amount,amount" doc:"nanotons withdrawn (toncenter's amount and withdraw_amount)"`
	QueryID    BigInt  `json:"query_id,omitempty" tc:"query_id" doc:"query id of the request"`
	ExcessesTo Address `json:"excesses_to,omitempty" tc:"source" doc:"where the unused TON went (toncenter's owner)"`
}

func init() {
	const protocols = "Cocoon (root, proxy, worker, client and wallet contracts)"
	declare(
		Type{Value: CocoonWorkerPayout{}, Title: "Cocoon worker payout", Describe: describeAs(func(v *CocoonWorkerPayout, w *Words) string {
			return "Paid " + w.TON(v.Amount) + " to Cocoon worker " + w.Account(v.Worker) + " from proxy " + w.Account(v.Proxy)
		}),
			Toncenter: "cocoon_worker_payout", Protocols: protocols,
			Doc:     "A proxy-signed payout request (0xa040ad28, last 0xf5f26a36) at a worker, which asks its proxy (worker_proxy_request 0x4d725d2c); the proxy pays the owner (payout 0xc59a7cd3) and returns the excess.",
			Failed:  "the worker or the proxy failed, or the owner's payout transaction aborted",
			Differs: "toncenter reads new_tokens and expected_address from the signed message's envelope instead of its signed payload; ours are the payload's"},
		Type{Value: CocoonProxyPayout{}, Title: "Cocoon proxy payout", Describe: describeAs(func(v *CocoonProxyPayout, w *Words) string {
			return "Paid " + w.TON(v.Amount) + " from Cocoon proxy " + w.Account(v.Proxy) + " to " + w.Account(v.ProxyOwner)
		}),
			Toncenter: "cocoon_proxy_payout", Protocols: protocols,
			Doc:    "ext_proxy_payout_request (0x7610e6eb) at a proxy, which pays its owner (payout 0xc59a7cd3) and returns the excess.",
			Failed: "the proxy failed or the owner's payout transaction aborted"},
		Type{Value: CocoonProxyCharge{}, Title: "Cocoon charge", Describe: describeAs(func(v *CocoonProxyCharge, w *Words) string {
			return "Charged Cocoon client " + w.Account(v.Client) + " for " + v.NewTokensUsed.or("an unknown number of") + " tokens used in all"
		}),
			Toncenter: "cocoon_proxy_charge", Protocols: protocols,
			Doc:     "A proxy-signed charge (0xbb63ff93) at a client contract, which reports to its proxy (client_proxy_request 0x65448ff4) and returns the excess.",
			Failed:  "the client contract failed (bad signature, old token count, closed)",
			Differs: "toncenter swaps the names of the client and proxy contracts and reads new_tokens_used and expected_address from the signed message's envelope; ours are the signed payload's"},
		Type{Value: CocoonClientTopUp{}, Title: "Cocoon top-up", Describe: describeAs(func(v *CocoonClientTopUp, w *Words) string {
			return "Topped up Cocoon client " + w.Account(v.Client) + " with " + w.TON(v.Amount)
		}),
			Toncenter: "cocoon_client_top_up", Protocols: protocols,
			Doc:    "ext_client_top_up (0xf172e6c2) at a client contract, which tells its proxy (client_proxy_request with client_proxy_top_up); the proxy returns the excess.",
			Failed: "the client contract failed"},
		Type{Value: CocoonRegisterProxy{}, Title: "Cocoon proxy registered", Describe: describeAs(func(v *CocoonRegisterProxy, w *Words) string {
			return "Registered a Cocoon proxy with root " + w.Account(v.Root)
		}),
			Toncenter: "cocoon_register_proxy", Protocols: protocols,
			Doc:    "register_proxy (0x927c7cb5) at the root, which returns the excess.",
			Failed: "the root failed"},
		Type{Value: CocoonUnregisterProxy{}, Title: "Cocoon proxy unregistered", Describe: describeAs(func(v *CocoonUnregisterProxy, w *Words) string {
			return "Unregistered a Cocoon proxy from root " + w.Account(v.Root)
		}),
			Toncenter: "cocoon_unregister_proxy", Protocols: protocols,
			Doc:    "unregister_proxy (0x6d49eaf2) at the root, which returns the excess.",
			Failed: "the root failed"},
		Type{Value: CocoonClientRegister{}, Title: "Cocoon client registered", Describe: describeAs(func(v *CocoonClientRegister, w *Words) string {
			return "Registered Cocoon client " + w.Account(v.Client) + " with proxy " + w.Account(v.Proxy)
		}),
			Toncenter: "cocoon_client_register", Protocols: protocols,
			Doc:    "owner_client_register (0xc45f9f3b) at a client contract, which tells its proxy and returns the excess.",
			Failed: "the client contract failed"},
		Type{Value: CocoonClientChangeSecretHash{}, Title: "Cocoon secret changed", Describe: describeAs(func(v *CocoonClientChangeSecretHash, w *Words) string {
			return "Changed the secret hash of Cocoon client " + w.Account(v.Client)
		}),
			Toncenter: "cocoon_client_change_secret_hash", Protocols: protocols,
			Doc:    "owner_client_change_secret_hash (0xa9357034) at a client contract, which tells its proxy and returns the excess.",
			Failed: "the client contract failed"},
		Type{Value: CocoonClientRequestRefund{}, Title: "Cocoon refund request", Describe: describeAs(func(v *CocoonClientRequestRefund, w *Words) string {
			return with("Asked for a refund of Cocoon client "+w.Account(v.Client), if1(v.RefundAmount != "", w.TON(v.RefundAmount)))
		}),
			Toncenter: "cocoon_client_request_refund", Protocols: protocols,
			Doc:     "owner_client_request_refund (0xfafa6cc1) at a client contract, directly or through the owner's Cocoon wallet (owner_wallet_send_message 0x9c69f376); the client starts closing and tells its proxy, which pays back a balance above the stake at once (or, after the closing delay, everything).",
			Failed:  "the client contract failed",
			Differs: "toncenter only recognizes requests that refund nothing at once"},
		Type{Value: CocoonGrantRefund{}, Title: "Cocoon refund", Describe: describeAs(func(v *CocoonGrantRefund, w *Words) string {
			return "Refunded " + w.TON(v.Amount) + " from Cocoon client " + w.Account(v.Client) + " to " + w.Account(v.Recipient)
		}),
			Toncenter: "cocoon_grant_refund", Protocols: protocols,
			Doc:     "A proxy-signed refund grant (0xefd711e1) at a client contract, which closes and asks its proxy to refund the balance (client_proxy_request with client_proxy_refund_granted); the proxy pays the owner and returns the excess.",
			Failed:  "the client contract failed, the proxy paid nothing, or the owner's payout transaction aborted",
			Differs: "toncenter swaps the names of the client and proxy contracts and reads new_tokens_used and expected_address from the signed message's envelope; ours are the signed payload's"},
		Type{Value: CocoonClientIncreaseStake{}, Title: "Cocoon stake raised", Describe: describeAs(func(v *CocoonClientIncreaseStake, w *Words) string {
			return "Raised the stake of Cocoon client " + w.Account(v.Client) + " to " + w.TON(v.NewStake)
		}),
			Toncenter: "cocoon_client_increase_stake", Protocols: protocols,
			Doc:    "owner_client_increase_stake (0x6a1f6a60) at a client contract, which tells its proxy and returns the excess.",
			Failed: "the client contract failed"},
		Type{Value: CocoonClientWithdraw{}, Title: "Cocoon withdrawal", Describe: describeAs(func(v *CocoonClientWithdraw, w *Words) string {
			return "Withdrew " + w.TON(v.Amount) + " from Cocoon client " + w.Account(v.Client)
		}),
			Toncenter: "cocoon_client_withdraw", Protocols: protocols,
			Doc:    "owner_client_withdraw (0xda068e78) at a client contract, which asks its proxy to pay the balance above the stake to the owner (client_proxy_request with client_proxy_refund_granted); the proxy pays and returns the excess.",
			Failed: "the client contract failed"},
	)
	addMatcher(OrderProtocol+70, "Cocoon", matchCocoon)
}

// cocoonIs reports a (not bounced) in-message with the op code.
func cocoonIs(n *node, op uint32) bool { return n.is(abi.MsgOpCode(op)) }

// cocoonSigned is a request signed by a proxy: the envelope names the
// query and where the excess goes, the signed payload its facts.
// SignedMessage{op:uint32 queryId:uint64 sendExcessesTo:address
// signature:bits512 signedDataCell:^Cell}; the payload is
// {op:uint32 queryId:uint64 newTokens:uint64 expectedMyAddress:address}.
type cocoonSigned struct {
	Op         uint32
	QueryID    uint64
	ExcessesTo tlb.MsgAddress
	Signature  tlb.Bits512
	Data       tlb.Ref[cocoonSignedPayload]
}

type cocoonSignedPayload struct {
	Op        uint32
	QueryID   uint64
	NewTokens uint64
	Expected  tlb.MsgAddress
}

// cocoonOwnerRequest: {op:uint32 queryId:uint64 sendExcessesTo:address},
// the layout of the requests without further fields.
type cocoonOwnerRequest struct {
	Op         uint32
	QueryID    uint64
	ExcessesTo tlb.MsgAddress
}

// cocoonProxyRequest is what a client (or worker) tells its proxy:
// ClientProxyRequest{queryId ownerAddress ^stateData payload:(Maybe ^Cell)}.
type cocoonProxyRequest struct {
	Op      uint32
	QueryID uint64
	Owner   tlb.MsgAddress
	State   tlb.Ref[boc.Cell]
	Payload tlb.Maybe[tlb.Ref[boc.Cell]]
}

// cocoonWorkerRequest: WorkerProxyRequest{queryId ownerAddress state:uint2
// tokens:uint64 payload:(Maybe ^Cell)}.
type cocoonWorkerRequest struct {
	Op      uint32
	QueryID uint64
	Owner   tlb.MsgAddress
	State   tlb.Uint2
	Tokens  uint64
	Payload tlb.Maybe[tlb.Ref[boc.Cell]]
}

// cocoonCoinsPayload is a payload of op, coins and an address:
// WorkerProxyPayoutRequest has a second coins field (proxyPart) between.
type cocoonCoinsPayload struct {
	Op         uint32
	Coins      tlb.VarUInteger16
	ExcessesTo tlb.MsgAddress
}

type cocoonWorkerPayoutPayload struct {
	Op         uint32
	WorkerPart tlb.VarUInteger16
	ProxyPart  tlb.VarUInteger16
	ExcessesTo tlb.MsgAddress
}

// signed decodes n's in-message as a signed request whose payload has the
// same op and query id.
func cocoonSignedOf(n *node) (cocoonSigned, bool) {
	var v cocoonSigned
	if !n.decode(&v) || v.Data.Value.Op != v.Op || v.Data.Value.QueryID != v.QueryID {
		return v, false
	}
	return v, true
}

// cocoonProxyRequestOf is the client's (or worker's) request to its proxy
// among n's children, with the payload's op when it has one.
func cocoonProxyRequestOf(n *node) (*node, cocoonProxyRequest, *boc.Cell) {
	var v cocoonProxyRequest
	r := n.child(abi.MsgOpCode(cocoonOpClientProxyRequest))
	if r == nil || !r.decode(&v) {
		return r, v, nil
	}
	if v.Payload.Exists {
		return r, v, &v.Payload.Value.Value
	}
	return r, v, nil
}

// cocoonRefundOf reads a refund payload (granted or forced) of a proxy request.
func cocoonRefundOf(p *boc.Cell) (amount BigInt, forced, ok bool) {
	var v cocoonCoinsPayload
	if p == nil || !unmarshalCell(p, &v) {
		return "", false, false
	}
	switch v.Op {
	case cocoonOpClientProxyRefund:
		return amountOf(v.Coins), false, true
	case cocoonOpClientProxyRefundForce:
		return amountOf(v.Coins), true, true
	}
	return "", false, false
}

func amountOf(v tlb.VarUInteger16) BigInt { return amount(v) }

// cocoonTail adds to d the unclaimed children of n that answer its step:
// payouts, returned excesses and bounces.
func cocoonTail(d *draft, n *node) {
	if n == nil {
		return
	}
	for _, ch := range n.children {
		if ch.used || ch.in() == nil {
			continue
		}
		if ch.in().Bounced || cocoonIs(ch, cocoonOpExcesses) || cocoonIs(ch, cocoonOpPayout) || ch.is(abi.ExcessMsgOpCode) {
			d.nodes = append(d.nodes, ch)
		}
	}
}

// matchCocoon dispatches on the op code of the request that starts a flow.
// A request whose contract succeeded but did not answer as the protocol
// does is not Cocoon's; one that failed is a failed action.
func matchCocoon(c *classifier, n *node) bool {
	m := n.in()
	if m == nil || m.IsExternalIn() || m.Bounced || !n.hasOp {
		return false
	}
	switch n.op {
	case cocoonOpWorkerPayoutSigned, cocoonOpWorkerLastPayoutSigned:
		return matchCocoonWorkerPayout(c, n)
	case cocoonOpProxyPayoutRequest:
		return matchCocoonProxyPayout(c, n)
	case cocoonOpClientChargeSigned, cocoonOpClientGrantRefundSigned:
		return matchCocoonClientSigned(c, n)
	case cocoonOpClientTopUp:
		return matchCocoonClientTopUp(c, n)
	case cocoonOpRegisterProxy, cocoonOpUnregisterProxy:
		return matchCocoonRoot(c, n)
	case cocoonOpClientRegister, cocoonOpClientChangeSecretHash, cocoonOpClientIncreaseStake,
		cocoonOpClientWithdraw, cocoonOpClientRequestRefund:
		return matchCocoonOwnerRequest(c, n)
	}
	return false
}

// cocoonDraft starts the draft of a flow anchored at n: n, its answers,
// and the user's wallet transaction when it started the trace.
func cocoonDraft(v any, n *node) *draft {
	d := newDraft(v, n.in().Hash, n).withInitiator(n)
	cocoonTail(d, n)
	return d
}

// payoutOK is toncenter's rule for the payout flows: failed when the
// payout's receiving transaction aborted.
func payoutOK(p *node) bool { return p != nil && !p.tx.Aborted }

func matchCocoonWorkerPayout(c *classifier, w *node) bool {
	s, ok := cocoonSignedOf(w)
	if !ok {
		return false
	}
	r := w.child(abi.MsgOpCode(cocoonOpWorkerProxyRequest))
	if r == nil && w.ok() {
		return false
	}
	v := &CocoonWorkerPayout{Sender: Address(w.in().Source), Worker: Address(w.tx.Account),
		PayoutType: "regular", QueryID: nano(s.QueryID), NewTokens: nano(s.Data.Value.NewTokens),
		ExpectedAddress: Address(addr(s.Data.Value.Expected)), ExcessesTo: Address(addr(s.ExcessesTo))}
	if w.op == cocoonOpWorkerLastPayoutSigned {
		v.PayoutType = "last"
	}
	d := cocoonDraft(v, w)
	var payout *node
	if r != nil {
		v.Proxy = Address(r.tx.Account)
		d.nodes = append(d.nodes, r)
		var req cocoonWorkerRequest
		if r.decode(&req) {
			v.WorkerOwner = Address(addr(req.Owner))
			state := int64(req.State)
			v.WorkerState = &state
			v.WorkerTokens = nano(req.Tokens)
			var p cocoonWorkerPayoutPayload
			if req.Payload.Exists && unmarshalCell(&req.Payload.Value.Value, &p) && p.Op == cocoonOpWorkerProxyPayout {
				v.WorkerPart, v.ProxyPart = amountOf(p.WorkerPart), amountOf(p.ProxyPart)
			}
		}
		if payout = r.child(abi.MsgOpCode(cocoonOpPayout)); payout != nil {
			v.Amount = nano(payout.in().Value)
			if v.WorkerOwner == "" {
				v.WorkerOwner = Address(payout.tx.Account)
			}
		}
		cocoonTail(d, r)
	}
	d.ok = w.ok() && r != nil && r.ok() && payoutOK(payout)
	c.add(d)
	return true
}

func matchCocoonProxyPayout(c *classifier, p *node) bool {
	var req cocoonOwnerRequest
	if !p.decode(&req) {
		return false
	}
	payout := p.child(abi.MsgOpCode(cocoonOpPayout))
	if payout == nil && p.ok() {
		return false
	}
	v := &CocoonProxyPayout{Sender: Address(p.in().Source), Proxy: Address(p.tx.Account),
		ExcessesTo: Address(addr(req.ExcessesTo)), QueryID: nano(req.QueryID)}
	if payout != nil {
		v.ProxyOwner, v.Amount = Address(payout.tx.Account), nano(payout.in().Value)
	}
	d := cocoonDraft(v, p)
	d.ok = p.ok() && payoutOK(payout)
	c.add(d)
	return true
}

// matchCocoonClientSigned: a proxy-signed charge or refund grant at a
// client contract.
func matchCocoonClientSigned(c *classifier, n *node) bool {
	s, ok := cocoonSignedOf(n)
	if !ok {
		return false
	}
	r, req, payload := cocoonProxyRequestOf(n)
	if r == nil && n.ok() {
		return false
	}
	var proxy Address
	if r != nil {
		proxy = Address(r.tx.Account)
	}
	sender, client := Address(n.in().Source), Address(n.tx.Account)
	qid, tokens := nano(s.QueryID), nano(s.Data.Value.NewTokens)
	expected, excesses := Address(addr(s.Data.Value.Expected)), Address(addr(s.ExcessesTo))
	if n.op == cocoonOpClientChargeSigned {
		d := cocoonDraft(&CocoonProxyCharge{Sender: sender, Client: client, Proxy: proxy, QueryID: qid,
			NewTokensUsed: tokens, ExpectedAddress: expected, ExcessesTo: excesses}, n)
		if r != nil {
			d.nodes = append(d.nodes, r)
			cocoonTail(d, r)
		}
		d.ok = n.ok()
		c.add(d)
		return true
	}
	v := &CocoonGrantRefund{Sender: sender, Client: client, Proxy: proxy, QueryID: qid,
		NewTokensUsed: tokens, ExpectedAddress: expected, ExcessesTo: excesses}
	d := cocoonDraft(v, n)
	var payout *node
	if r != nil {
		d.nodes = append(d.nodes, r)
		v.Recipient = Address(addr(req.Owner))
		if payout = r.child(abi.MsgOpCode(cocoonOpPayout)); payout != nil {
			v.Recipient, v.Amount = Address(payout.tx.Account), nano(payout.in().Value)
		} else if amt, _, ok := cocoonRefundOf(payload); ok {
			v.Amount = amt
		}
		cocoonTail(d, r)
	}
	d.ok = n.ok() && r != nil && r.ok() && payoutOK(payout)
	c.add(d)
	return true
}

func matchCocoonClientTopUp(c *classifier, n *node) bool {
	var req struct {
		Op         uint32
		QueryID    uint64
		Amount     tlb.VarUInteger16
		ExcessesTo tlb.MsgAddress
	}
	if !n.decode(&req) {
		return false
	}
	r, _, _ := cocoonProxyRequestOf(n)
	if r == nil && n.ok() {
		return false
	}
	v := &CocoonClientTopUp{Sender: Address(n.in().Source), Client: Address(n.tx.Account),
		Amount: amountOf(req.Amount), QueryID: nano(req.QueryID), ExcessesTo: Address(addr(req.ExcessesTo))}
	d := cocoonDraft(v, n)
	if r != nil {
		v.Proxy = Address(r.tx.Account)
		d.nodes = append(d.nodes, r)
		cocoonTail(d, r)
	}
	d.ok = n.ok()
	c.add(d)
	return true
}

// matchCocoonRoot: a proxy registered at or removed from the root.
func matchCocoonRoot(c *classifier, n *node) bool {
	body, ok := cellOf(n.in().Body)
	if !ok {
		return false
	}
	var head struct {
		Op      uint32
		QueryID uint64
	}
	if !unmarshalCell(body, &head) {
		return false
	}
	if n.ok() && n.child(abi.MsgOpCode(cocoonOpExcesses)) == nil {
		return false
	}
	sender, root, qid := Address(n.in().Source), Address(n.tx.Account), nano(head.QueryID)
	var v any
	if n.op == cocoonOpRegisterProxy {
		v = &CocoonRegisterProxy{Sender: sender, Root: root, QueryID: qid, ProxyAddress: Text(cocoonProxyAddress(body))}
	} else {
		seqno, err := body.ReadUint(32)
		if err != nil {
			return false
		}
		s := int64(seqno)
		v = &CocoonUnregisterProxy{Sender: sender, Root: root, QueryID: qid, Seqno: &s}
	}
	d := cocoonDraft(v, n)
	d.ok = n.ok()
	c.add(d)
	return true
}

// cocoonProxyAddress reads a proxy's registered network address: a zero
// bit, a 7-bit length and that many bytes of text.
func cocoonProxyAddress(c *boc.Cell) string {
	if t, err := c.ReadUint(1); err != nil || t != 0 {
		return ""
	}
	n, err := c.ReadUint(7)
	if err != nil {
		return ""
	}
	b, err := c.ReadBytes(int(n))
	if err != nil {
		return ""
	}
	return string(b)
}

// cellOf parses a body into its root cell.
func cellOf(body []byte) (c *boc.Cell, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = nil, false
		}
	}()
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil, false
	}
	return cells[0], true
}

// matchCocoonOwnerRequest: a request of a client contract's owner. The
// client tells its proxy (client_proxy_request), which may pay out, and
// returns the excess itself or through the proxy.
func matchCocoonOwnerRequest(c *classifier, n *node) bool {
	var (
		qid      uint64
		excesses tlb.MsgAddress
		v        any
		client   = Address(n.tx.Account)
		owner    = Address(n.in().Source)
	)
	switch n.op {
	case cocoonOpClientRegister:
		var req struct {
			Op         uint32
			QueryID    uint64
			Nonce      uint64
			ExcessesTo tlb.MsgAddress
		}
		if !n.decode(&req) {
			return false
		}
		qid, excesses = req.QueryID, req.ExcessesTo
		v = &CocoonClientRegister{Owner: owner, Client: client, Nonce: nano(req.Nonce)}
	case cocoonOpClientChangeSecretHash:
		var req struct {
			Op         uint32
			QueryID    uint64
			Hash       tlb.Uint256
			ExcessesTo tlb.MsgAddress
		}
		if !n.decode(&req) {
			return false
		}
		qid, excesses = req.QueryID, req.ExcessesTo
		h := big.Int(req.Hash)
		v = &CocoonClientChangeSecretHash{Owner: owner, Client: client, NewSecretHash: Text(h.Text(16))}
	case cocoonOpClientIncreaseStake:
		var req struct {
			Op         uint32
			QueryID    uint64
			NewStake   tlb.VarUInteger16
			ExcessesTo tlb.MsgAddress
		}
		if !n.decode(&req) {
			return false
		}
		qid, excesses = req.QueryID, req.ExcessesTo
		v = &CocoonClientIncreaseStake{Owner: owner, Client: client, NewStake: amountOf(req.NewStake)}
	default: // withdraw, request refund
		var req cocoonOwnerRequest
		if !n.decode(&req) {
			return false
		}
		qid, excesses = req.QueryID, req.ExcessesTo
		if n.op == cocoonOpClientWithdraw {
			v = &CocoonClientWithdraw{Owner: owner, Client: client}
		} else {
			v = &CocoonClientRequestRefund{Owner: owner, Client: client}
		}
	}
	r, req, payload := cocoonProxyRequestOf(n)
	if r == nil && n.ok() {
		return false
	}
	var proxy Address
	if r != nil {
		proxy = Address(r.tx.Account)
	}
	ex := Address(addr(excesses))
	switch x := v.(type) {
	case *CocoonClientRegister:
		x.Proxy, x.QueryID, x.ExcessesTo = proxy, nano(qid), ex
	case *CocoonClientChangeSecretHash:
		x.Proxy, x.QueryID, x.ExcessesTo = proxy, nano(qid), ex
	case *CocoonClientIncreaseStake:
		x.Proxy, x.QueryID, x.ExcessesTo = proxy, nano(qid), ex
	case *CocoonClientWithdraw:
		x.Proxy, x.QueryID, x.ExcessesTo = proxy, nano(qid), ex
		if amt, _, ok := cocoonRefundOf(payload); ok {
			x.Amount = amt
		}
		if r != nil && x.Owner == "" {
			x.Owner = Address(addr(req.Owner))
		}
	case *CocoonClientRequestRefund:
		x.Proxy, x.QueryID, x.ExcessesTo = proxy, nano(qid), ex
		if amt, forced, ok := cocoonRefundOf(payload); ok {
			x.RefundAmount, x.Forced = amt, flag(forced)
		}
		// The owner's Cocoon wallet may have sent the request on its
		// owner's behalf (owner_wallet_send_message).
		w := n.parent
		via := w != nil && !w.used && cocoonIs(w, cocoonOpWalletSendMessage)
		x.ViaWallet = flag(via)
		if via {
			d := newDraft(v, n.in().Hash, w).withInitiator(w)
			d.nodes = append(d.nodes, n)
			cocoonTail(d, w)
			cocoonTail(d, n)
			cocoonAddProxyRequest(d, r)
			d.ok = n.ok()
			c.add(d)
			return true
		}
	}
	d := cocoonDraft(v, n)
	cocoonAddProxyRequest(d, r)
	d.ok = n.ok()
	c.add(d)
	return true
}

func cocoonAddProxyRequest(d *draft, r *node) {
	if r != nil {
		d.nodes = append(d.nodes, r)
		cocoonTail(d, r)
	}
}
