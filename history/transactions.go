package history

import (
	"bytes"
	"context"
	"sort"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// Transaction is a stored transaction decoded from its raw BOC: the
// decoded fields (messages, total fees) plus what tonlib shows beside
// them (the storage fee).
type Transaction struct {
	*chain.Transaction
	Address    ton.AccountID
	StorageFee uint64
}

// TxID names a transaction as tonlib does: lt and hash.
type TxID struct {
	Lt   uint64
	Hash chain.Hash
}

// decode reads a stored transaction's BOC. A row without one is ErrNoBOC
// as NotFound: tonlib's shapes carry the BOC, which is never made up.
func decode(stored *chain.Transaction) (*Transaction, error) {
	if len(stored.BOC) == 0 {
		return nil, apperr.Wrap(apperr.NotFound, ErrNoBOC, "transaction "+stored.Hash.Base64()+": "+ErrNoBOC.Error()+
			"; its decoded fields are served by /api/v3/actions and GraphQL")
	}
	id, err := ton.ParseAccountID(stored.Account)
	if err != nil {
		return nil, err
	}
	// A lone tick-tock transaction has no message to tell its workchain:
	// the stored row knows the account.
	tx, raw, err := chain.DecodeTransactionBOC(stored.BOC, &id.Workchain)
	if err != nil {
		return nil, err
	}
	tx.Account = stored.Account
	return &Transaction{Transaction: tx, Address: id, StorageFee: storageFee(raw)}, nil
}

// storageFee is what the storage phase collected (tonlib's storage_fee).
func storageFee(t *tlb.Transaction) uint64 {
	d := t.Description
	var sp *tlb.TrStoragePhase
	switch d.SumType {
	case "TransOrd":
		if d.TransOrd.StoragePh.Exists {
			sp = &d.TransOrd.StoragePh.Value
		}
	case "TransTickTock":
		sp = &d.TransTickTock.StoragePh
	case "TransSplitPrepare":
		if d.TransSplitPrepare.StoragePh.Exists {
			sp = &d.TransSplitPrepare.StoragePh.Value
		}
	case "TransMergePrepare":
		sp = &d.TransMergePrepare.StoragePh
	case "TransMergeInstall":
		if d.TransMergeInstall.StoragePh.Exists {
			sp = &d.TransMergeInstall.StoragePh.Value
		}
	case "TransStorage":
		sp = &d.TransStorage.StoragePh
	}
	if sp == nil {
		return 0
	}
	return uint64(sp.StorageFeesCollected)
}

// AccountTransactions is tonlib's getTransactions: the account's
// transactions from `from` (included; nil: its newest stored one) back in
// time, while lt > toLt, at most limit. The walk follows each
// transaction's link to the previous one, as tonlib does. Where the store
// lacks the previous transaction (history older than the store, or a
// gap), the archive answers the rest when there is one; without one the
// answer ends there, shorter than limit, rather than skip transactions
// (a client paging on from its last transaction then gets nothing more).
// A transaction stored without its raw BOC (from trace JSON) ends the
// walk likewise; when it is the first, the answer is ErrNoBOC (NotFound).
// An account with no stored transaction starts at the last transaction
// its stored state names, in the archive.
func (h *History) AccountTransactions(ctx context.Context, account ton.AccountID, from *TxID, toLt uint64, limit int) ([]*Transaction, error) {
	raw := chain.RawAddress(account)
	var atMost uint64
	if from != nil {
		start, err := h.store.TransactionByHash(ctx, from.Hash)
		if err != nil {
			return nil, err
		}
		if start == nil || start.Lt != from.Lt || start.Account != raw {
			if h.archive != nil {
				return h.fromArchive(ctx, account, nil, *from, toLt, limit)
			}
			return nil, apperr.New(apperr.NotFound, "transaction (%d, %s) of %s is not in the store", from.Lt, from.Hash.Base64(), raw)
		}
		atMost = from.Lt
	}
	rows, err := h.store.AccountTransactions(ctx, raw, atMost, toLt, limit)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 && from == nil && h.archive != nil {
		// No transaction stored: the account's stored state names its
		// newest one, and the archive has the history.
		st, err := h.store.Account(ctx, raw)
		if err != nil {
			return nil, err
		}
		if st == nil || st.LastTxLt == 0 || st.LastTxLt <= toLt {
			return []*Transaction{}, nil
		}
		return h.fromArchive(ctx, account, nil, TxID{Lt: st.LastTxLt, Hash: st.LastTxHash}, toLt, limit)
	}
	out := make([]*Transaction, 0, len(rows))
	for i, row := range rows {
		if len(row.BOC) == 0 && i > 0 {
			break // imported from trace JSON: the raw history ends here
		}
		tx, err := decode(row)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			prev := out[len(out)-1]
			if prev.PrevLt != tx.Lt || prev.PrevHash != tx.Hash {
				break // the store lacks what lies between
			}
		}
		out = append(out, tx)
	}
	if len(out) == 0 || len(out) == limit || h.archive == nil {
		return out, nil
	}
	last := out[len(out)-1]
	if last.PrevLt == 0 || last.PrevLt <= toLt {
		return out, nil // the account's first transaction, or the end asked for
	}
	return h.fromArchive(ctx, account, out, TxID{Lt: last.PrevLt, Hash: last.PrevHash}, toLt, limit)
}

// fromArchive appends to out the archive's transactions from `at` back,
// while lt > toLt, up to limit in all.
func (h *History) fromArchive(ctx context.Context, account ton.AccountID, out []*Transaction, at TxID, toLt uint64, limit int) ([]*Transaction, error) {
	bocs, err := h.archive.AccountTransactions(ctx, account, at.Lt, at.Hash, limit-len(out))
	if err != nil {
		return nil, apperr.Wrap(apperr.Unavailable, err, "transactions older than the store: the lite servers did not answer: "+err.Error())
	}
	raw := chain.RawAddress(account)
	for i, b := range bocs {
		tx, err := decode(&chain.Transaction{Account: raw, BOC: b})
		if err != nil {
			return nil, apperr.Wrap(apperr.Unavailable, err, "a lite server sent a transaction that does not decode")
		}
		if !sameAccount(b, account) {
			return nil, apperr.New(apperr.Unavailable, "a lite server sent a transaction of another account for %s", raw)
		}
		// The first must be the one asked for, each next its predecessor:
		// a lite server's answer is checked, not trusted.
		want := at
		if i > 0 {
			want = TxID{Lt: out[len(out)-1].PrevLt, Hash: out[len(out)-1].PrevHash}
		}
		if tx.Lt != want.Lt || tx.Hash != want.Hash {
			return nil, apperr.New(apperr.Unavailable, "a lite server sent transaction (%d, %s) for (%d, %s)", tx.Lt, tx.Hash.Base64(), want.Lt, want.Hash.Base64())
		}
		if tx.Lt <= toLt {
			break
		}
		out = append(out, tx)
		if tx.PrevLt == 0 {
			break
		}
	}
	return out, nil
}

// Transaction is one stored transaction by hash, decoded; NotFound when
// absent.
func (h *History) Transaction(ctx context.Context, hash chain.Hash) (*Transaction, error) {
	row, err := h.store.TransactionByHash(ctx, hash)
	if err != nil {
		return nil, err
	}
	if row == nil {
		return nil, apperr.New(apperr.NotFound, "transaction %s is not in the store", hash.Base64())
	}
	return decode(row)
}

// ResultTransaction is tonlib's tryLocateResultTx: the transaction of
// destination caused by the message source sent at createdLt.
func (h *History) ResultTransaction(ctx context.Context, source, destination ton.AccountID, createdLt uint64) (*Transaction, error) {
	row, err := h.store.TransactionByInMessage(ctx, chain.RawAddress(source), chain.RawAddress(destination), createdLt)
	return found(row, err)
}

// SourceTransaction is tonlib's tryLocateSourceTx: the transaction of
// source that sent destination the message created at createdLt.
func (h *History) SourceTransaction(ctx context.Context, source, destination ton.AccountID, createdLt uint64) (*Transaction, error) {
	row, err := h.store.TransactionByOutMessage(ctx, chain.RawAddress(source), chain.RawAddress(destination), createdLt)
	return found(row, err)
}

func found(row *chain.Transaction, err error) (*Transaction, error) {
	if err != nil {
		return nil, err
	}
	if row == nil {
		return nil, apperr.New(apperr.NotFound, "no such transaction in the store")
	}
	return decode(row)
}

// BlockTransactions are the stored transactions of a block, ordered as
// tonlib lists them (by account, then lt), after the (account, lt) given
// (nil: from the first), at most count. incomplete says more follow.
func (h *History) BlockTransactions(ctx context.Context, b *chain.BlockHeader, after *AccountTx, count int) (txs []*Transaction, incomplete bool, err error) {
	// A block's transactions are the stored ones of its shard in its lt
	// range (a block holds at most a few thousand; the bound is a guard).
	const maxBlockTxs = 20_000
	rows, err := h.store.BlockTransactions(ctx, b.Workchain, b.Shard, b.StartLt, b.EndLt, maxBlockTxs)
	if err != nil {
		return nil, false, err
	}
	var mine []*Transaction
	for _, row := range rows {
		id, err := ton.ParseAccountID(row.Account)
		if err != nil || !InShard(id, b.Workchain, b.Shard) {
			continue
		}
		tx, err := decode(row)
		if err != nil {
			return nil, false, err
		}
		mine = append(mine, tx)
	}
	sort.Slice(mine, func(i, j int) bool {
		if c := bytes.Compare(mine[i].Address.Address[:], mine[j].Address.Address[:]); c != 0 {
			return c < 0
		}
		return mine[i].Lt < mine[j].Lt
	})
	if after != nil {
		i := sort.Search(len(mine), func(i int) bool {
			c := bytes.Compare(mine[i].Address.Address[:], after.Account[:])
			return c > 0 || (c == 0 && mine[i].Lt > after.Lt)
		})
		mine = mine[i:]
	}
	if len(mine) > count {
		return mine[:count], true, nil
	}
	return mine, false, nil
}

// AccountTx is tonlib's blocks.accountTransactionId: a position in a
// block's list (the account's 256-bit address and an lt).
type AccountTx struct {
	Account [32]byte
	Lt      uint64
}

// sameAccount reports whether a transaction BOC is of the account (its
// account_addr; the workchain is the block's, not in the transaction).
func sameAccount(b []byte, account ton.AccountID) bool {
	cells, err := boc.DeserializeBoc(b)
	if err != nil || len(cells) != 1 {
		return false
	}
	var t tlb.Transaction
	if err := tlb.Unmarshal(cells[0], &t); err != nil {
		return false
	}
	return [32]byte(t.AccountAddr) == account.Address
}
