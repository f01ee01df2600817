package main

import (
	"context"
	"fmt"

	"github.com/tonql/tonql/internal/synth"
	"github.com/tonql/tonql/store"
)

// explain prints the plan of each /api/v3/actions filter shape against a
// loaded database, to show that every filter with the sort is served by an
// index (docs/PERFORMANCE.md).
func explain(ctx context.Context, dbURL string, seed uint64) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	var sample struct {
		ActionID, TraceID, TxHash string
		EndUtime                  uint32
		StartLt, EndLt            uint64
		McSeqno                   uint32
	}
	if err := st.DB().NewRaw("SELECT action_id, trace_id, tx_hash, end_utime, start_lt, end_lt, mc_seqno FROM actions WHERE mc_seqno IS NOT NULL ORDER BY end_lt DESC OFFSET 5000 LIMIT 1").
		Scan(ctx, &sample.ActionID, &sample.TraceID, &sample.TxHash, &sample.EndUtime, &sample.StartLt, &sample.EndLt, &sample.McSeqno); err != nil {
		return err
	}
	// The generated set has no messages: with real data imported beside it
	// the plan reads one of theirs, else a hash of no message.
	msgHash := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	_ = st.DB().NewRaw("SELECT hash_norm FROM messages WHERE hash_norm IS NOT NULL LIMIT 1").Scan(ctx, &msgHash)
	var deep store.ActionKey
	if err := st.DB().NewRaw("SELECT end_lt, action_id FROM action_accounts WHERE account = ? ORDER BY end_lt DESC, action_id DESC OFFSET 100000 LIMIT 1", synth.HotAccount(seed, 0)).
		Scan(ctx, &deep.EndLt, &deep.ActionID); err != nil {
		return err
	}
	startLt, endLt := sample.StartLt-1_000_000, sample.EndLt
	var lt uint64
	if err := st.DB().NewRaw("SELECT tx_lt FROM action_transactions WHERE tx_hash = ?", sample.TxHash).Scan(ctx, &lt); err != nil {
		return err
	}
	hot := synth.HotAccount(seed, 0)
	su, eu := sample.EndUtime-3600, sample.EndUtime
	cases := []struct {
		name string
		f    store.ActionFilter
	}{
		{"no filter", store.ActionFilter{}},
		{"account=HOT", store.ActionFilter{Account: hot}},
		{"account=HOT offset=10000", store.ActionFilter{Account: hot, Offset: 10000}},
		{"account=HOT action_type=JettonTransfer", store.ActionFilter{Account: hot, Types: []string{"JettonTransfer"}}},
		{"account=HOT start/end_utime", store.ActionFilter{Account: hot, StartUtime: &su, EndUtime: &eu}},
		{"action_type=JettonSwap", store.ActionFilter{Types: []string{"JettonSwap"}}},
		{"action_type=JettonSwap,JettonBurn", store.ActionFilter{Types: []string{"JettonSwap", "JettonBurn"}}},
		{"start/end_utime", store.ActionFilter{StartUtime: &su, EndUtime: &eu}},
		{"trace_id", store.ActionFilter{TraceIDs: []string{sample.TraceID}}},
		{"tx_hash", store.ActionFilter{TxHashes: []string{sample.TxHash}}},
		{"tx_lt", store.ActionFilter{TxLt: &lt}},
		{"action_id", store.ActionFilter{ActionIDs: []string{sample.ActionID}}},
		{"no filter offset=10000", store.ActionFilter{Offset: 10000}},
		{"msg_hash", store.ActionFilter{MsgHashes: []string{msgHash}}},
		{"start_lt/end_lt", store.ActionFilter{StartLt: &startLt, EndLt: &endLt}},
		{"mc_seqno", store.ActionFilter{McSeqno: &sample.McSeqno}},
		{"exclude_action_type=TonTransfer", store.ActionFilter{ExcludeTypes: []string{"TonTransfer"}}},
		{"account=HOT exclude_action_type=TonTransfer", store.ActionFilter{Account: hot, ExcludeTypes: []string{"TonTransfer"}}},
		{"account=HOT start/end_lt", store.ActionFilter{Account: hot, StartLt: &startLt, EndLt: &endLt}},
		{"account=HOT mc_seqno", store.ActionFilter{Account: hot, McSeqno: &sample.McSeqno}},
		{"account=HOT msg_hash", store.ActionFilter{Account: hot, MsgHashes: []string{msgHash}}},
		{"account=HOT after cursor at depth 100000 (GraphQL)", store.ActionFilter{Account: hot, After: &deep}},
	}
	for _, c := range cases {
		c.f.Limit = 10
		plan, err := st.ExplainActions(ctx, c.f)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Printf("### %s\n\n```\n%s\n```\n\n", c.name, plan)
	}
	return nil
}
