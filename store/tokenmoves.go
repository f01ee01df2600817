package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
)

// Token moves (migration 20261201000111): the transfer and burn requests
// of stored transactions (chain.TokenMove), written with them and read by
// toncenter's /jetton/transfers, /jetton/burns and /nft/transfers.

type tokenMoveRow struct {
	bun.BaseModel `bun:"table:token_moves,alias:m"`

	TxHash              string `bun:"tx_hash,pk"`
	Kind                string `bun:"kind,notnull"`
	TxLt                int64  `bun:"tx_lt,notnull"`
	TxUtime             int64  `bun:"tx_utime,notnull"`
	TraceID             string `bun:"trace_id,notnull"`
	QueryID             string `bun:"query_id,notnull"`
	Amount              string `bun:"amount,notnull"`
	Source              string `bun:"source,notnull"`
	Destination         string `bun:"destination,notnull"`
	Contract            string `bun:"contract,notnull"`
	ResponseDestination string `bun:"response_destination,notnull"`
	CustomPayload       string `bun:"custom_payload,notnull"`
	ForwardAmount       string `bun:"forward_amount,notnull"`
	ForwardPayload      string `bun:"forward_payload,notnull"`
	// Master is read from the registry (a join), never written.
	Master string `bun:"master,scanonly"`
}

// saveTokenMoves queues the moves of a batch; a transaction's move is
// immutable like the transaction, so a second write keeps the first.
func saveTokenMoves(ctx context.Context, w *writer, moves []chain.TokenMove) error {
	if len(moves) == 0 {
		return nil
	}
	rows := make([]tokenMoveRow, len(moves))
	for i, m := range moves {
		rows[i] = tokenMoveRow{TxHash: m.TxHash, Kind: m.Kind, TxLt: int64(m.TxLt), TxUtime: int64(m.TxUtime),
			TraceID: m.TraceID, QueryID: m.QueryID, Amount: m.Amount, Source: m.Source, Destination: m.Destination,
			Contract: m.Contract, ResponseDestination: m.ResponseDestination, CustomPayload: m.CustomPayload,
			ForwardAmount: m.ForwardAmount, ForwardPayload: m.ForwardPayload}
	}
	rows = dedupe(rows, func(r *tokenMoveRow) string { return r.TxHash }, nil)
	return queueRows(ctx, w, "save token moves", rows, "CONFLICT (tx_hash) DO NOTHING")
}

func (r *tokenMoveRow) toChain() chain.TokenMove {
	return chain.TokenMove{Kind: r.Kind, TxHash: r.TxHash, TxLt: uint64(r.TxLt), TxUtime: uint32(r.TxUtime),
		TraceID: r.TraceID, QueryID: r.QueryID, Amount: r.Amount, Source: r.Source, Destination: r.Destination,
		Contract: r.Contract, ResponseDestination: r.ResponseDestination, CustomPayload: r.CustomPayload,
		ForwardAmount: r.ForwardAmount, ForwardPayload: r.ForwardPayload, Master: r.Master}
}

// Owner directions of a MoveFilter.
const (
	OwnerEither = iota // source or destination
	OwnerOut           // source: the owner asked
	OwnerIn            // destination: the owner receives
)

// MoveFilter selects the moves of one kind (chain.Move*). Empty lists do
// not filter; raw addresses.
type MoveFilter struct {
	Kind string
	// Owners match Source, Destination or either (Direction).
	Owners    []string
	Direction int
	// Contracts are jetton wallets or NFT items.
	Contracts []string
	// Master is a jetton master or NFT collection: the moves of the
	// wallets or items the registry holds for it.
	Master string
	// Time and lt bounds of the transaction, inclusive.
	StartUtime, EndUtime *uint32
	StartLt, EndLt       *uint64
	Limit, Offset        int
	Asc                  bool
}

// registryOf is the registry table that names a contract's master, and
// its master column, for a kind.
func registryOf(kind string) (table, col string) {
	if kind == chain.MoveNftTransfer {
		return "nft_items", "collection"
	}
	return "jetton_wallets", "jetton"
}

// TokenMoves lists the moves of f in transaction lt order (then hash),
// each with its master when the registry knows its contract.
func (s *Store) TokenMoves(ctx context.Context, f MoveFilter) ([]chain.TokenMove, error) {
	table, col := registryOf(f.Kind)
	return readTokens[tokenMoveRow, *tokenMoveRow](ctx, s, func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.ColumnExpr("m.*").ColumnExpr("COALESCE(r.?, '') AS master", bun.Ident(col)).
			Join("LEFT JOIN ? AS r ON r.address = m.contract", bun.Ident(table)).
			Where("m.kind = ?", f.Kind)
		if len(f.Owners) > 0 {
			switch f.Direction {
			case OwnerOut:
				q = q.Where("m.source IN (?)", bun.In(f.Owners))
			case OwnerIn:
				q = q.Where("m.destination IN (?)", bun.In(f.Owners))
			default:
				q = q.Where("(m.source IN (?) OR m.destination IN (?))", bun.In(f.Owners), bun.In(f.Owners))
			}
		}
		if len(f.Contracts) > 0 {
			q = q.Where("m.contract IN (?)", bun.In(f.Contracts))
		}
		if f.Master != "" {
			q = q.Where("m.contract IN (SELECT address FROM ? WHERE ? = ?)", bun.Ident(table), bun.Ident(col), f.Master)
		}
		if f.StartUtime != nil {
			q = q.Where("m.tx_utime >= ?", int64(*f.StartUtime))
		}
		if f.EndUtime != nil {
			q = q.Where("m.tx_utime <= ?", int64(*f.EndUtime))
		}
		if f.StartLt != nil {
			q = q.Where("m.tx_lt >= ?", int64(*f.StartLt))
		}
		if f.EndLt != nil {
			q = q.Where("m.tx_lt <= ?", int64(*f.EndLt))
		}
		dir := " DESC"
		if f.Asc {
			dir = " ASC"
		}
		return q.OrderExpr("m.tx_lt" + dir).OrderExpr("m.tx_hash" + dir).Limit(int64(f.Limit)).Offset(int64(f.Offset))
	})
}
