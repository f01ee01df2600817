package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Multisig v2 wallets as package contracts reads them (migration
// 20261201000215): a row per wallet, its signers and proposers as member
// rows in index order.

type multisigRow struct {
	bun.BaseModel `bun:"table:multisig_wallets,alias:multisig_wallets"`

	Address        string  `bun:"address,pk"`
	NextOrderSeqno *string `bun:"next_order_seqno"`
	Threshold      *int    `bun:"threshold"`
	contractStateRow
}

func (r *multisigRow) toChain() chain.Multisig {
	m := chain.Multisig{Address: r.Address, NextOrderSeqno: textOr(r.NextOrderSeqno), ContractState: r.toState()}
	if r.Threshold != nil {
		m.Threshold = *r.Threshold
	}
	return m
}

type multisigMemberRow struct {
	bun.BaseModel `bun:"table:multisig_members,alias:multisig_members"`

	Contract string `bun:"contract,pk"`
	Proposer bool   `bun:"proposer,pk"`
	Idx      int    `bun:"idx,pk"`
	Wallet   string `bun:"wallet,notnull"`
}

// multisigBehind is what a multisig's newer transaction makes unknown:
// its seqno and threshold (the members are kept but neither shown nor
// matched while known is false; MarkContractsBehind).
var multisigBehind = behindSet{"multisig_wallets", "known = FALSE, next_order_seqno = NULL, threshold = NULL"}

// saveMultisigs writes multisig rows unless a later reading is stored,
// and replaces the members of each row just written.
func saveMultisigs(ctx context.Context, tx bun.Tx, in []chain.Multisig) error {
	rows := make([]multisigRow, 0, len(in))
	for _, m := range in {
		th := m.Threshold
		rows = append(rows, multisigRow{Address: m.Address, NextOrderSeqno: optText(m.NextOrderSeqno), Threshold: &th,
			contractStateRow: stateRow(m.ContractState)})
	}
	rows = dedupe(rows, func(r *multisigRow) string { return r.Address }, func(a, b *multisigRow) bool { return a.LastTxLt >= b.LastTxLt })
	if len(rows) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE").
		Set("next_order_seqno = EXCLUDED.next_order_seqno, threshold = EXCLUDED.threshold, known = EXCLUDED.known").
		Set("code_hash = EXCLUDED.code_hash, data_hash = EXCLUDED.data_hash, last_tx_lt = EXCLUDED.last_tx_lt").
		Where(newerThan("multisig_wallets")).Exec(ctx); err != nil {
		return err
	}
	for _, m := range in {
		n, err := tx.NewSelect().Table("multisig_wallets").Where("address = ? AND last_tx_lt = ?", m.Address, int64(m.LastTxLt)).Count(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		if _, err := tx.NewDelete().Table("multisig_members").Where("contract = ?", m.Address).Exec(ctx); err != nil {
			return err
		}
		members := make([]multisigMemberRow, 0, len(m.Signers)+len(m.Proposers))
		for i, w := range m.Signers {
			members = append(members, multisigMemberRow{Contract: m.Address, Idx: i, Wallet: w})
		}
		for i, w := range m.Proposers {
			members = append(members, multisigMemberRow{Contract: m.Address, Proposer: true, Idx: i, Wallet: w})
		}
		if len(members) == 0 {
			continue
		}
		if _, err := tx.NewInsert().Model(&members).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// MultisigFilter selects multisig wallets (toncenter's
// /api/v3/multisig/wallets): by address and by wallets that are among
// their signers or proposers (raw addresses); Asc orders by last
// transaction lt oldest first (else newest first).
type MultisigFilter struct {
	Addresses, Wallets []string
	Asc                bool
	TokenPage
}

// Multisigs lists multisig wallets by last transaction lt (then address),
// each with its signers and proposers when known.
func (s *Store) Multisigs(ctx context.Context, f MultisigFilter) ([]chain.Multisig, error) {
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	list, err := readTokens[multisigRow, *multisigRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		q = whereIn(q, inlineParams(q.DB()), "address", f.Addresses)
		if len(f.Wallets) > 0 {
			q = q.Where("known AND address IN (SELECT contract FROM multisig_members WHERE wallet IN (?))", bun.In(f.Wallets))
		}
		return f.apply(q.Order("last_tx_lt"+dir, "address"+dir))
	})
	if err != nil || len(list) == 0 {
		return list, err
	}
	addrs := make([]string, len(list))
	for i, m := range list {
		addrs[i] = m.Address
	}
	var rows []multisigMemberRow
	if err := s.read(func(db *bun.DB) error {
		rows = rows[:0]
		return db.NewSelect().Model(&rows).Where("contract IN (?)", bun.In(addrs)).Order("contract", "proposer", "idx").Scan(ctx)
	}); err != nil {
		return nil, unavailable(err)
	}
	type members struct{ signers, proposers []string }
	by := map[string]*members{}
	for _, r := range rows {
		m := by[r.Contract]
		if m == nil {
			m = &members{}
			by[r.Contract] = m
		}
		if r.Proposer {
			m.proposers = append(m.proposers, r.Wallet)
		} else {
			m.signers = append(m.signers, r.Wallet)
		}
	}
	for i := range list {
		if !list[i].Known {
			continue
		}
		list[i].Signers, list[i].Proposers = []string{}, []string{}
		if m := by[list[i].Address]; m != nil {
			list[i].Signers = append(list[i].Signers, m.signers...)
			list[i].Proposers = append(list[i].Proposers, m.proposers...)
		}
	}
	return list, nil
}
