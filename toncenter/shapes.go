package toncenter

import (
	"encoding/json"

	"github.com/tonql/tonql/chain"
)

// The shapes below are toncenter v3's (ton-index-go's models), field by
// field. Where toncenter's field is not a pointer but the store may not
// know the value (a row imported from trace JSON has no raw BOC), ours is
// a pointer and the value null: never a made-up value. docs/API-NOTES.md
// lists each such field.

// BlockID is toncenter's BlockId.
type BlockID struct {
	Workchain int32  `json:"workchain"`
	Shard     string `json:"shard"` // hex, upper-case, as toncenter writes ShardId
	Seqno     int32  `json:"seqno"`
}

// MessageContent is a body or a StateInit: its cell hash and BOC.
type MessageContent struct {
	Hash    *string          `json:"hash"`
	Body    *string          `json:"body"`
	Decoded *json.RawMessage `json:"decoded"`
}

// Message is toncenter's Message.
type Message struct {
	Hash                 string            `json:"hash"`
	Source               *string           `json:"source"`
	Destination          *string           `json:"destination"`
	Value                *string           `json:"value"`
	ValueExtraCurrencies map[string]string `json:"value_extra_currencies"`
	FwdFee               *string           `json:"fwd_fee"`
	IhrFee               *string           `json:"ihr_fee"`
	ExtraFlags           *string           `json:"extra_flags"`
	CreatedLt            *string           `json:"created_lt"`
	CreatedAt            *string           `json:"created_at"`
	Opcode               *string           `json:"opcode"`
	DecodedOpcode        *string           `json:"decoded_opcode"`
	IhrDisabled          *bool             `json:"ihr_disabled"`
	Bounce               *bool             `json:"bounce"`
	Bounced              *bool             `json:"bounced"`
	ImportFee            *string           `json:"import_fee"`
	InMsgTxHash          *string           `json:"in_msg_tx_hash,omitempty"`
	OutMsgTxHash         *string           `json:"out_msg_tx_hash,omitempty"`
	MessageContent       *MessageContent   `json:"message_content"`
	InitState            *MessageContent   `json:"init_state"`
	HashNorm             *string           `json:"hash_norm,omitempty"`
}

// AccountState is toncenter's AccountState as a transaction shows it
// before and after: a transaction holds the state hashes only.
type AccountState struct {
	Hash                   string            `json:"hash"`
	Balance                *string           `json:"balance"`
	BalanceExtraCurrencies map[string]string `json:"extra_currencies"`
	AccountStatus          *string           `json:"account_status"`
	FrozenHash             *string           `json:"frozen_hash"`
	DataHash               *string           `json:"data_hash"`
	CodeHash               *string           `json:"code_hash"`
}

// MsgSize is toncenter's MsgSize.
type MsgSize struct {
	Cells *string `json:"cells"`
	Bits  *string `json:"bits"`
}

// StoragePhase is toncenter's StoragePhase.
type StoragePhase struct {
	StorageFeesCollected *string `json:"storage_fees_collected,omitempty"`
	StorageFeesDue       *string `json:"storage_fees_due,omitempty"`
	StatusChange         *string `json:"status_change,omitempty"`
}

// CreditPhase is toncenter's CreditPhase.
type CreditPhase struct {
	DueFeesCollected      *string           `json:"due_fees_collected,omitempty"`
	Credit                *string           `json:"credit,omitempty"`
	CreditExtraCurrencies map[string]string `json:"credit_extra_currencies,omitempty"`
}

// ComputePhase is toncenter's ComputePhase.
type ComputePhase struct {
	IsSkipped        *bool   `json:"skipped,omitempty"`
	Reason           *string `json:"reason,omitempty"`
	Success          *bool   `json:"success,omitempty"`
	MsgStateUsed     *bool   `json:"msg_state_used,omitempty"`
	AccountActivated *bool   `json:"account_activated,omitempty"`
	GasFees          *string `json:"gas_fees,omitempty"`
	GasUsed          *string `json:"gas_used,omitempty"`
	GasLimit         *string `json:"gas_limit,omitempty"`
	GasCredit        *string `json:"gas_credit,omitempty"`
	Mode             *int32  `json:"mode,omitempty"`
	ExitCode         *int32  `json:"exit_code,omitempty"`
	ExitArg          *int32  `json:"exit_arg,omitempty"`
	VMSteps          *uint32 `json:"vm_steps,omitempty"`
	VMInitStateHash  *string `json:"vm_init_state_hash,omitempty"`
	VMFinalStateHash *string `json:"vm_final_state_hash,omitempty"`
}

// ActionPhase is toncenter's ActionPhase.
type ActionPhase struct {
	Success         *bool    `json:"success,omitempty"`
	Valid           *bool    `json:"valid,omitempty"`
	NoFunds         *bool    `json:"no_funds,omitempty"`
	StatusChange    *string  `json:"status_change,omitempty"`
	TotalFwdFees    *string  `json:"total_fwd_fees,omitempty"`
	TotalActionFees *string  `json:"total_action_fees,omitempty"`
	ResultCode      *int32   `json:"result_code,omitempty"`
	ResultArg       *int32   `json:"result_arg,omitempty"`
	TotActions      *int32   `json:"tot_actions,omitempty"`
	SpecActions     *int32   `json:"spec_actions,omitempty"`
	SkippedActions  *int32   `json:"skipped_actions,omitempty"`
	MsgsCreated     *int32   `json:"msgs_created,omitempty"`
	ActionListHash  *string  `json:"action_list_hash,omitempty"`
	TotMsgSize      *MsgSize `json:"tot_msg_size,omitempty"`
}

// BouncePhase is toncenter's BouncePhase.
type BouncePhase struct {
	Type       *string  `json:"type"`
	MsgSize    *MsgSize `json:"msg_size,omitempty"`
	ReqFwdFees *string  `json:"req_fwd_fees,omitempty"`
	MsgFees    *string  `json:"msg_fees,omitempty"`
	FwdFees    *string  `json:"fwd_fees,omitempty"`
}

// SplitInfo is toncenter's SplitInfo.
type SplitInfo struct {
	CurShardPfxLen *int32  `json:"cur_shard_pfx_len,omitempty"`
	AccSplitDepth  *int32  `json:"acc_split_depth,omitempty"`
	ThisAddr       *string `json:"this_addr,omitempty"`
	SiblingAddr    *string `json:"sibling_addr,omitempty"`
}

// TransactionDescr is toncenter's TransactionDescr.
type TransactionDescr struct {
	Type        string        `json:"type"`
	Aborted     *bool         `json:"aborted,omitempty"`
	Destroyed   *bool         `json:"destroyed,omitempty"`
	CreditFirst *bool         `json:"credit_first,omitempty"`
	IsTock      *bool         `json:"is_tock,omitempty"`
	Installed   *bool         `json:"installed,omitempty"`
	StoragePh   *StoragePhase `json:"storage_ph,omitempty"`
	CreditPh    *CreditPhase  `json:"credit_ph,omitempty"`
	ComputePh   *ComputePhase `json:"compute_ph,omitempty"`
	Action      *ActionPhase  `json:"action,omitempty"`
	Bounce      *BouncePhase  `json:"bounce,omitempty"`
	SplitInfo   *SplitInfo    `json:"split_info,omitempty"`
}

// Transaction is toncenter's Transaction.
type Transaction struct {
	Account                  string            `json:"account"`
	Hash                     string            `json:"hash"`
	Lt                       string            `json:"lt"`
	Now                      int64             `json:"now"`
	McBlockSeqno             *int64            `json:"mc_block_seqno"`
	TraceID                  *string           `json:"trace_id,omitempty"`
	TraceExternalHash        *string           `json:"trace_external_hash,omitempty"`
	PrevTransHash            *string           `json:"prev_trans_hash"`
	PrevTransLt              *string           `json:"prev_trans_lt"`
	OrigStatus               string            `json:"orig_status"`
	EndStatus                string            `json:"end_status"`
	TotalFees                string            `json:"total_fees"`
	TotalFeesExtraCurrencies map[string]string `json:"total_fees_extra_currencies"`
	Description              *TransactionDescr `json:"description"`
	BlockRef                 *BlockID          `json:"block_ref"`
	InMsg                    *Message          `json:"in_msg"`
	OutMsgs                  []*Message        `json:"out_msgs"`
	AccountStateBefore       *AccountState     `json:"account_state_before"`
	AccountStateAfter        *AccountState     `json:"account_state_after"`
	Emulated                 bool              `json:"emulated"`
	Finality                 string            `json:"finality"`
}

// TransactionsResponse is toncenter's TransactionsResponse.
type TransactionsResponse struct {
	Transactions []*Transaction    `json:"transactions"`
	AddressBook  chain.AddressBook `json:"address_book"`
}

// MessagesResponse is toncenter's MessagesResponse. metadata is always
// empty here: token metadata is served by /api/v3/metadata.
type MessagesResponse struct {
	Messages    []*Message        `json:"messages"`
	AddressBook chain.AddressBook `json:"address_book"`
	Metadata    map[string]any    `json:"metadata"`
}

// AccountBalance is an entry of /api/v3/topAccountsByBalance.
type AccountBalance struct {
	Account string `json:"account"` // raw upper-case
	Balance string `json:"balance"` // nanotons
}

// SentMessage is the answer of POST /api/v3/message (toncenter's
// V2SendMessageResult).
type SentMessage struct {
	MessageHash     string `json:"message_hash"`
	MessageHashNorm string `json:"message_hash_norm"`
}
