package chain

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
)

// Status of an action.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Roles an account can take in an action (the action<->account link).
const (
	RoleSender    = "sender"
	RoleRecipient = "recipient"
	RoleSource    = "source"      // a jetton wallet the jettons leave
	RoleDest      = "destination" // a jetton wallet the jettons arrive at
	RoleMaster    = "master"      // jetton master / NFT collection
	RoleContract  = "contract"    // a called or deployed contract, an NFT item, a DEX pool
	RoleOther     = "other"
)

// ActionAccount links an account (raw upper-case address) to an action.
type ActionAccount struct {
	Address string
	Role    string
}

// Action is one decoded, human-level action of a trace. JSON field names are
// the /api/v3/actions contract; GraphQL binds to the same struct. The type
// names and value shapes are declared by package actions.
type Action struct {
	ActionID string `json:"action_id"`
	TraceID  string `json:"trace_id"` // standard base64
	TxHash   string `json:"tx_hash"`  // the transaction where the action begins
	Type     string `json:"type"`
	Status   string `json:"status"`
	// Title and Description say the action to a person ("Jetton
	// transfer", "Sent 218.75 USDT to alice.ton"): its type's template
	// (actions.Describe) over the value and the names of the answer's
	// address book and metadata. Filled when the answer is made, never
	// stored: a token's symbol or a domain learned later shows at once.
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"`
	Value       RawJSON `json:"value"`
	StartLt     uint64  `json:"start_lt"`
	StartUtime  uint32  `json:"start_utime"`
	EndLt       uint64  `json:"end_lt"`
	EndUtime    uint32  `json:"end_utime"`
	// Transactions lists every transaction of the action (standard base64),
	// in lt order; TxHash is the first.
	Transactions  []string `json:"transactions"`
	TraceEndLt    uint64   `json:"trace_end_lt"`
	TraceEndUtime uint32   `json:"trace_end_utime"`
	// TraceExternalHashNorm is the TEP-467 normalized hash of the external
	// message that started the trace, when one did.
	TraceExternalHashNorm *string `json:"trace_external_hash_norm"`
	// TraceExternalHash is the hash of that message as it was received
	// (toncenter's trace_external_hash): shown in toncenter's dialect only,
	// the seed's shape has the normalized one. nil when no external message
	// started the trace or the row was stored before it was kept.
	TraceExternalHash *string `json:"-"`
	// McSeqno is the masterchain block in which the trace ended, when known.
	McSeqno *uint32 `json:"mc_seqno"`
	// Accounts is every account taking part in any role, sorted; shown only
	// when asked for (include_accounts).
	Accounts []string `json:"accounts,omitempty"`
	// TransactionsFull is the action's transactions as objects, shown only
	// when asked for (include_transactions): nil is no key, and an empty
	// list (transactions the store no longer has) is [].
	TransactionsFull []*FullTransaction `json:"transactions_full,omitzero"`

	// Participants are the accounts linked to the action with their roles:
	// what the account filter matches. Written once, never shown as is.
	Participants []ActionAccount `json:"-"`
	// Addresses lists the raw addresses that appear in Value, sorted: the
	// keys of the address book, computed when the action is decoded so a
	// page never parses values.
	Addresses []string `json:"-"`
	TxLts     []uint64 `json:"-"` // logical times, parallel to Transactions

	// ParentActionID names the action this one is a step of, "" for a
	// top-level action. An action of a type newer than toncenter's first
	// version (a purchase, a staking deposit, a bridge send) also lists its
	// steps as the first version's types (its NFT or jetton transfers, TON
	// transfers, calls), so that a client pinned to an older version
	// (supported_action_types) shows those instead of a type it cannot
	// render; every other client sees the top-level action alone. REST does
	// not show the link (toncenter's shape); GraphQL does.
	ParentActionID string `json:"-"`
	// Ancestors are the types of the actions this one is a step of,
	// nearest first; empty for a top-level action.
	Ancestors []string `json:"-"`
}

// RawJSON is a JSON object kept as canonical bytes: written once by the
// decoder, stored as text, and sent to clients unchanged by REST and GraphQL.
type RawJSON []byte

func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}

func (r *RawJSON) UnmarshalJSON(b []byte) error {
	if !json.Valid(b) {
		return errors.New("invalid JSON")
	}
	*r = append((*r)[:0], b...)
	return nil
}

// MarshalGQL makes RawJSON a gqlgen scalar that writes the bytes as they are.
func (r RawJSON) MarshalGQL(w io.Writer) {
	b, _ := r.MarshalJSON()
	_, _ = w.Write(b)
}

// UnmarshalGQL accepts any JSON-able input value.
func (r *RawJSON) UnmarshalGQL(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*r = b
	return nil
}

var errNotInput = errors.New("output-only scalar")

// OrEmpty returns the bytes, or "{}" for an empty value.
func (r RawJSON) OrEmpty() []byte {
	b, _ := r.MarshalJSON()
	return b
}

// ParticipantAddresses is every participant's address, sorted, once each:
// the Accounts of an action whose Participants are known (a preview leaves
// Accounts out).
func (a *Action) ParticipantAddresses() []string {
	out := make([]string, 0, len(a.Participants))
	for _, p := range a.Participants {
		out = append(out, p.Address)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
