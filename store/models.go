package store

import (
	"strings"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Row structs are private to the store: the rest of the program speaks
// chain types, and each table has exactly one conversion pair here.
// Hashes are kept as standard base64 text, addresses as raw upper-case text,
// both exactly as the API shows them, so filters need no conversion.

type txRow struct {
	bun.BaseModel `bun:"table:transactions,alias:transactions"`

	Hash            string `bun:"hash,pk"`
	Account         string `bun:"account,notnull"`
	Lt              int64  `bun:"lt,notnull"`
	Utime           int64  `bun:"utime,notnull"`
	TraceID         string `bun:"trace_id,notnull"`
	OrigStatus      string `bun:"orig_status,notnull"`
	EndStatus       string `bun:"end_status,notnull"`
	TotalFees       int64  `bun:"total_fees,notnull"`
	Success         bool   `bun:"success,notnull"`
	Aborted         bool   `bun:"aborted,notnull"`
	ComputeExitCode int32  `bun:"compute_exit_code,notnull"`
	InMsgHash       string `bun:"in_msg_hash,notnull"`
	McSeqno         int64  `bun:"mc_seqno,notnull"`
	BOC             []byte `bun:"boc"`
	// The block that holds it (migration 20261201000121); NULL when not
	// read from a raw block.
	BlockWorkchain *int32 `bun:"block_workchain"`
	BlockShard     *int64 `bun:"block_shard"`
	BlockSeqno     *int64 `bun:"block_seqno"`
	// Facts: what a transaction without BOC knows beyond these columns
	// (decoded.go).
	Facts *string `bun:"facts"`
	// Seq is its place in the stream of events (txseq.go); NULL for rows
	// stored before streams told transactions.
	Seq *int64 `bun:"seq"`
}

type msgRow struct {
	bun.BaseModel `bun:"table:messages,alias:messages"`

	TxHash      string `bun:"tx_hash,pk"`
	Direction   string `bun:"direction,pk"` // "in" or "out"
	Seq         int    `bun:"seq,pk"`       // position among the out-messages; 0 for in
	Hash        string `bun:"hash,notnull"`
	Source      string `bun:"source,notnull"`
	Destination string `bun:"destination,notnull"`
	Value       int64  `bun:"value,notnull"`
	FwdFee      int64  `bun:"fwd_fee,notnull"`
	CreatedLt   int64  `bun:"created_lt,notnull"`
	Opcode      *int64 `bun:"opcode"`
	Bounce      bool   `bun:"bounce,notnull"`
	Bounced     bool   `bun:"bounced,notnull"`
	Body        []byte `bun:"body"`
	InitState   []byte `bun:"init_state"`
	// HashNorm is the TEP-467 normalized hash of an external-in message.
	HashNorm *string `bun:"hash_norm"`
	// BodyHash is the hash of the body's cell (the empty cell's when it
	// has none): toncenter's body_hash filter. NULL when Body does not
	// parse.
	BodyHash *string `bun:"body_hash"`
	// CreatedAt is the creation time in the message's header (unix
	// seconds): toncenter's start_utime/end_utime of messages. NULL for an
	// external inbound message, whose header has none, and when unknown.
	CreatedAt *int64 `bun:"created_at"`
	// Facts: of a message of a transaction without BOC (decoded.go).
	Facts *string `bun:"facts"`
}

type traceRow struct {
	bun.BaseModel `bun:"table:traces,alias:traces"`

	ID           string `bun:"id,pk"`
	StartLt      int64  `bun:"start_lt,notnull"`
	EndLt        int64  `bun:"end_lt,notnull"`
	StartUtime   int64  `bun:"start_utime,notnull"`
	EndUtime     int64  `bun:"end_utime,notnull"`
	Complete     bool   `bun:"complete,notnull"`
	Transactions int    `bun:"transactions,notnull"`
	// Seq is a complete trace's place in the stream of events
	// (traceseq.go); NULL while incomplete.
	Seq *int64 `bun:"seq"`
}

type actionRow struct {
	bun.BaseModel `bun:"table:actions,alias:actions"`

	ActionID   string `bun:"action_id,pk"`
	TraceID    string `bun:"trace_id,notnull"`
	TxHash     string `bun:"tx_hash,notnull"`
	Type       string `bun:"type,notnull"`
	Status     string `bun:"status,notnull"`
	Value      string `bun:"value,notnull"`
	StartLt    int64  `bun:"start_lt,notnull"`
	StartUtime int64  `bun:"start_utime,notnull"`
	EndLt      int64  `bun:"end_lt,notnull"`
	EndUtime   int64  `bun:"end_utime,notnull"`
	// What a page shows without further reads; lists are space-separated.
	TxHashes              string  `bun:"tx_hashes,notnull"`
	TraceEndLt            int64   `bun:"trace_end_lt,notnull"`
	TraceEndUtime         int64   `bun:"trace_end_utime,notnull"`
	TraceExternalHashNorm *string `bun:"trace_external_hash_norm"`
	TraceExternalHash     *string `bun:"trace_external_hash"`
	McSeqno               *int64  `bun:"mc_seqno"`
	Addresses             string  `bun:"addresses,notnull"` // in the value: the address book's keys
	Accounts              string  `bun:"accounts,notnull"`  // every participant
	// Seq orders actions by the commit that first wrote them (see seq.go).
	Seq int64 `bun:"seq,notnull"`
	// ParentActionID is the action this one is a step of, "" for a
	// top-level action; Ancestors the types of the actions it is a step
	// of, nearest first, space-separated ("" for a top-level action).
	ParentActionID string `bun:"parent_action_id,notnull"`
	Ancestors      string `bun:"ancestors,notnull"`
}

// actionAccountRow links an account to an action. The sort key and the
// filterable columns of the action are copied here so that an account query
// walks one index in order and stops after limit+offset rows, never sorting
// a hot account's 100k actions. One row per (account, action); an account
// with several roles in one action lists them comma-separated.
type actionAccountRow struct {
	bun.BaseModel `bun:"table:action_accounts,alias:action_accounts"`

	Account    string `bun:"account,pk"`
	ActionID   string `bun:"action_id,pk"`
	Roles      string `bun:"roles,notnull"`
	Type       string `bun:"type,notnull"`
	EndLt      int64  `bun:"end_lt,notnull"`
	StartUtime int64  `bun:"start_utime,notnull"`
	EndUtime   int64  `bun:"end_utime,notnull"`
	StartLt    int64  `bun:"start_lt,notnull"`
	// Ancestors is the action's (see actionRow): the nested rule of a
	// filter is tested here without reading actions, as type is.
	Ancestors string `bun:"ancestors,notnull"`
}

type actionTxRow struct {
	bun.BaseModel `bun:"table:action_transactions,alias:action_transactions"`

	ActionID string `bun:"action_id,pk"`
	TxHash   string `bun:"tx_hash,pk"`
	TxLt     int64  `bun:"tx_lt,notnull"`
}

type accountRow struct {
	bun.BaseModel `bun:"table:accounts,alias:accounts"`

	Address         string `bun:"address,pk"`
	Status          string `bun:"status,notnull"`
	CodeHash        string `bun:"code_hash,notnull"`
	IsWallet        bool   `bun:"is_wallet,notnull"`
	Balance         int64  `bun:"balance,notnull"`
	LastTxLt        int64  `bun:"last_tx_lt,notnull"`
	LastTxHash      string `bun:"last_tx_hash,notnull"`
	ShardAccountBOC []byte `bun:"shard_account_boc"`
	ReadAtUtime     int64  `bun:"read_at_utime,notnull"`
}

type interfacesRow struct {
	bun.BaseModel `bun:"table:account_interfaces,alias:account_interfaces"`

	Address    string `bun:"address,pk"`
	Interfaces string `bun:"interfaces,notnull"` // space-separated
}

type dnsRow struct {
	bun.BaseModel `bun:"table:dns_names,alias:dns_names"`

	Domain  string `bun:"domain,pk"`
	Address string `bun:"address,notnull"`
}

type configRow struct {
	bun.BaseModel `bun:"table:chain_configs,alias:chain_configs"`

	McSeqno      int64  `bun:"mc_seqno,pk"`
	Utime        int64  `bun:"utime,notnull"`
	ConfigBOC    []byte `bun:"config_boc,notnull"`
	LibrariesBOC []byte `bun:"libraries_boc"`
}

func hashText(h chain.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.Base64()
}

func parseHashText(s string) chain.Hash {
	h, _ := chain.ParseHash(s) // written by us; "" decodes to zero
	return h
}

func newTxRow(t *chain.Transaction) txRow {
	r := txRow{
		Hash: t.Hash.Base64(), Account: t.Account, Lt: int64(t.Lt), Utime: int64(t.Utime),
		TraceID: hashText(t.TraceID), OrigStatus: t.OrigStatus, EndStatus: t.EndStatus,
		TotalFees: int64(t.TotalFees), Success: t.Success(), Aborted: t.Aborted,
		ComputeExitCode: t.ComputeExitCode, McSeqno: int64(t.McSeqno), BOC: t.BOC,
		Facts: newTxFacts(t),
	}
	if t.InMsg != nil {
		r.InMsgHash = t.InMsg.Hash.Base64()
	}
	if b := t.Block; b != nil {
		wc, shard, seqno := b.Workchain, b.ShardSigned(), int64(b.Seqno)
		r.BlockWorkchain, r.BlockShard, r.BlockSeqno = &wc, &shard, &seqno
	}
	return r
}

func newMsgRow(txHash, dir string, seq int, m *chain.Message) msgRow {
	r := msgRow{
		TxHash: txHash, Direction: dir, Seq: seq, Hash: m.Hash.Base64(),
		Source: m.Source, Destination: m.Destination, Value: int64(m.Value),
		FwdFee: int64(m.FwdFee), CreatedLt: int64(m.CreatedLt),
		Bounce: m.Bounce, Bounced: m.Bounced, Body: m.Body, InitState: m.InitState,
	}
	if m.Opcode != nil {
		op := int64(*m.Opcode)
		r.Opcode = &op
	}
	if h, ok := chain.NormalizedHash(m); ok {
		s := h.Base64()
		r.HashNorm = &s
	}
	if h, ok := chain.BodyHash(m.Body); ok {
		s := h.Base64()
		r.BodyHash = &s
	}
	if m.Source != "" && m.CreatedAt != 0 { // 0: a trace JSON message without it
		at := int64(m.CreatedAt)
		r.CreatedAt = &at
	}
	return r
}

func newTraceRow(t *chain.Trace) traceRow {
	return traceRow{
		ID: t.ID.Base64(), StartLt: int64(t.StartLt), EndLt: int64(t.EndLt),
		StartUtime: int64(t.StartUtime), EndUtime: int64(t.EndUtime),
		Complete: t.Complete, Transactions: t.Transactions,
	}
}

func newActionRow(a *chain.Action) actionRow {
	r := actionRow{
		ActionID: a.ActionID, TraceID: a.TraceID, TxHash: a.TxHash, Type: a.Type,
		Status: a.Status, Value: string(a.Value.OrEmpty()),
		StartLt: int64(a.StartLt), StartUtime: int64(a.StartUtime),
		EndLt: int64(a.EndLt), EndUtime: int64(a.EndUtime),
		TxHashes: strings.Join(a.Transactions, " "), TraceEndLt: int64(a.TraceEndLt),
		TraceEndUtime: int64(a.TraceEndUtime), TraceExternalHashNorm: a.TraceExternalHashNorm,
		TraceExternalHash: a.TraceExternalHash,
		Addresses:         strings.Join(a.Addresses, " "), Accounts: strings.Join(a.Accounts, " "),
		ParentActionID: a.ParentActionID, Ancestors: strings.Join(a.Ancestors, " "),
	}
	if a.McSeqno != nil {
		n := int64(*a.McSeqno)
		r.McSeqno = &n
	}
	return r
}

// toChain builds the action as a page shows it; Accounts is filled, and the
// caller drops it unless it was asked for.
func (r *actionRow) toChain() *chain.Action {
	a := &chain.Action{
		ActionID: r.ActionID, TraceID: r.TraceID, TxHash: r.TxHash, Type: r.Type,
		Status: r.Status, Value: chain.RawJSON(r.Value),
		StartLt: uint64(r.StartLt), StartUtime: uint32(r.StartUtime),
		EndLt: uint64(r.EndLt), EndUtime: uint32(r.EndUtime),
		Transactions: splitList(r.TxHashes), TraceEndLt: uint64(r.TraceEndLt),
		TraceEndUtime: uint32(r.TraceEndUtime), TraceExternalHashNorm: r.TraceExternalHashNorm,
		TraceExternalHash: r.TraceExternalHash,
		Addresses:         splitList(r.Addresses), Accounts: splitList(r.Accounts),
		ParentActionID: r.ParentActionID,
	}
	if r.Ancestors != "" { // a top-level action's stay nil: no allocation on the hot path
		a.Ancestors = splitList(r.Ancestors)
	}
	if r.McSeqno != nil {
		n := uint32(*r.McSeqno)
		a.McSeqno = &n
	}
	return a
}

// splitList splits a stored list (joined with single spaces when the
// action was saved) into substrings of s, as strings.Fields does, with one
// allocation and no per-character Unicode test: it runs for three lists of
// every action read. Like strings.Fields, an empty list is an empty
// slice, not nil (JSON [] rather than null).
func splitList(s string) []string {
	out := make([]string, 0, strings.Count(s, " ")+1)
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			break
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		s = s[i+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// actionAccountRows merges the roles of each account in the action.
func actionAccountRows(a *chain.Action) []actionAccountRow {
	var rows []actionAccountRow
	idx := map[string]int{}
	ancestors := strings.Join(a.Ancestors, " ")
	for _, acc := range a.Participants {
		if acc.Address == "" {
			continue
		}
		if i, ok := idx[acc.Address]; ok {
			if !strings.Contains(","+rows[i].Roles+",", ","+acc.Role+",") {
				rows[i].Roles += "," + acc.Role
			}
			continue
		}
		idx[acc.Address] = len(rows)
		rows = append(rows, actionAccountRow{
			Account: acc.Address, ActionID: a.ActionID, Roles: acc.Role, Type: a.Type,
			EndLt: int64(a.EndLt), StartUtime: int64(a.StartUtime), EndUtime: int64(a.EndUtime),
			StartLt: int64(a.StartLt), Ancestors: ancestors,
		})
	}
	return rows
}

func actionTxRows(a *chain.Action) []actionTxRow {
	rows := make([]actionTxRow, 0, len(a.Transactions))
	seen := map[string]bool{}
	for i, h := range a.Transactions {
		if seen[h] {
			continue
		}
		seen[h] = true
		var lt int64
		if i < len(a.TxLts) {
			lt = int64(a.TxLts[i])
		}
		rows = append(rows, actionTxRow{ActionID: a.ActionID, TxHash: h, TxLt: lt})
	}
	return rows
}

func newAccountRow(s *chain.AccountState) accountRow {
	r := accountRow{
		Address: s.Address, Status: s.Status, IsWallet: s.IsWallet, Balance: int64(s.Balance),
		LastTxLt: int64(s.LastTxLt), LastTxHash: hashText(s.LastTxHash),
		ShardAccountBOC: s.ShardAccountBOC, ReadAtUtime: int64(s.ReadAtUtime),
	}
	if s.CodeHash != nil {
		r.CodeHash = s.CodeHash.Base64()
	}
	return r
}

func (r *accountRow) toChain() *chain.AccountState {
	s := &chain.AccountState{
		Address: r.Address, Status: r.Status, IsWallet: r.IsWallet, Balance: uint64(r.Balance),
		LastTxLt: uint64(r.LastTxLt), LastTxHash: parseHashText(r.LastTxHash),
		ShardAccountBOC: r.ShardAccountBOC, ReadAtUtime: uint32(r.ReadAtUtime),
	}
	if r.CodeHash != "" {
		h := parseHashText(r.CodeHash)
		s.CodeHash = &h
	}
	return s
}

func (r *configRow) toChain() *chain.ChainConfig {
	return &chain.ChainConfig{
		McSeqno: uint32(r.McSeqno), Utime: uint32(r.Utime),
		ConfigBOC: r.ConfigBOC, LibrariesBOC: r.LibrariesBOC,
	}
}
