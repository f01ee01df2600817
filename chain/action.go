package chain

import (
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// Action types. The set is the contract of `action_type`; documented in docs/ACTIONS.md.
const (
	TonTransfer         = "TonTransfer"
	JettonTransfer      = "JettonTransfer"
	NftItemTransfer     = "NftItemTransfer"
	ContractDeploy      = "ContractDeploy"
	JettonBurn          = "JettonBurn"
	JettonMint          = "JettonMint"
	NftPurchase         = "NftPurchase"
	SmartContractExec   = "SmartContractExec"
	JettonSwap          = "JettonSwap"
	DexDepositLiquidity = "DexDepositLiquidity"
)

// ActionTypes lists every valid type name, sorted.
var ActionTypes = []string{
	ContractDeploy, DexDepositLiquidity, JettonBurn, JettonMint, JettonSwap, JettonTransfer,
	NftItemTransfer, NftPurchase, SmartContractExec, TonTransfer,
}

// typeAliases maps accepted filter spellings to canonical names.
var typeAliases = map[string]string{"NativeTransfer": TonTransfer}

// CanonicalActionType resolves aliases and reports whether name is a known type.
func CanonicalActionType(name string) (string, bool) {
	if a, ok := typeAliases[name]; ok {
		return a, true
	}
	i := sort.SearchStrings(ActionTypes, name)
	return name, i < len(ActionTypes) && ActionTypes[i] == name
}

// ValidActionTypeNames is the list shown in the error for an unknown type.
func ValidActionTypeNames() string {
	return strings.Join(append(append([]string{}, ActionTypes...), "NativeTransfer"), ", ")
}

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
// the /api/v3/actions contract; GraphQL binds to the same struct.
type Action struct {
	ActionID   string          `json:"action_id"`
	TraceID    string          `json:"trace_id"` // standard base64
	TxHash     string          `json:"tx_hash"`  // the transaction where the action begins
	Type       string          `json:"type"`
	Status     string          `json:"status"`
	Value      RawJSON         `json:"value"`
	StartLt    uint64          `json:"start_lt"`
	StartUtime uint32          `json:"start_utime"`
	EndLt      uint64          `json:"end_lt"`
	EndUtime   uint32          `json:"end_utime"`
	Accounts   []ActionAccount `json:"-"`
	TxHashes   []string        `json:"-"` // every transaction of the action, standard base64
	TxLts      []uint64        `json:"-"` // their logical times, parallel to TxHashes
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

// NewValue encodes a value object canonically (map keys sorted by encoding/json).
func NewValue(fields map[string]any) RawJSON {
	b, err := json.Marshal(fields)
	if err != nil {
		// Values are built from strings, numbers, bools and nested maps only.
		panic("chain: action value not encodable: " + err.Error())
	}
	return b
}

// OrEmpty returns the bytes, or "{}" for an empty value.
func (r RawJSON) OrEmpty() []byte {
	b, _ := r.MarshalJSON()
	return b
}
