package analytics

import (
	"encoding/json"
	"math/big"
	"sort"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// Kinds of a Move.
const (
	KindTransfer = "transfer"
	KindMint     = "mint"
	KindBurn     = "burn"
)

// Move is a successful jetton transfer, mint or burn: every such action,
// nested ones (the legs of a swap) included, once.
type Move struct {
	ActionID, TraceID string
	Jetton            string
	Utime             int64
	Kind              string
	Sender, Receiver  string // owners; "" where the kind has none (a mint's sender, a burn's receiver)
	Amount            *big.Int
}

// MoveOf is the move an action counts as; ok false for any other action or
// one without a known jetton.
func MoveOf(a *chain.Action) (Move, bool) {
	if a.Status != chain.StatusOK {
		return Move{}, false
	}
	m := Move{ActionID: a.ActionID, TraceID: a.TraceID, Utime: int64(a.EndUtime)}
	var amount actions.BigInt
	switch a.Type {
	case "JettonTransfer":
		var v transferFields
		if json.Unmarshal(a.Value, &v) != nil {
			return Move{}, false
		}
		m.Kind, m.Jetton, m.Sender, m.Receiver, amount = KindTransfer, string(v.JettonMaster), string(v.Sender), string(v.Recipient), v.Amount
	case "JettonMint":
		var v mintFields
		if json.Unmarshal(a.Value, &v) != nil {
			return Move{}, false
		}
		m.Kind, m.Jetton, m.Receiver, amount = KindMint, string(v.JettonMaster), string(v.Recipient), v.Amount
	case "JettonBurn":
		var v burnFields
		if json.Unmarshal(a.Value, &v) != nil {
			return Move{}, false
		}
		m.Kind, m.Jetton, m.Sender, amount = KindBurn, string(v.JettonMaster), string(v.Owner), v.Amount
	default:
		return Move{}, false
	}
	n, ok := new(big.Int).SetString(string(amount), 10)
	if !ok || m.Jetton == "" {
		return Move{}, false
	}
	m.Amount = n
	return m, true
}

// Volume is a jetton's activity in one interval.
type Volume struct {
	Jetton         string
	Interval       int64
	Bucket         int64
	Transfers      int64
	TransferAmount Amount
	Mints          int64
	MintAmount     Amount
	Burns          int64
	BurnAmount     Amount
	// Distinct owners that sent (transfers, burns) and received
	// (transfers, mints).
	Senders, Receivers int64
}

// Volumes adds moves (of any jettons) up into the volumes of iv, ordered by
// jetton and bucket.
func Volumes(moves []Move, iv Interval) []Volume {
	type key struct {
		jetton string
		bucket int64
	}
	type acc struct {
		v        Volume
		snd, rcv map[string]bool
	}
	groups := map[key]*acc{}
	for i := range moves {
		m := &moves[i]
		k := key{m.Jetton, iv.Bucket(m.Utime)}
		g := groups[k]
		if g == nil {
			g = &acc{v: Volume{Jetton: m.Jetton, Interval: iv.Seconds, Bucket: k.bucket},
				snd: map[string]bool{}, rcv: map[string]bool{}}
			groups[k] = g
		}
		switch m.Kind {
		case KindTransfer:
			g.v.Transfers++
			g.v.TransferAmount = g.v.TransferAmount.Add(AmountOf(m.Amount))
		case KindMint:
			g.v.Mints++
			g.v.MintAmount = g.v.MintAmount.Add(AmountOf(m.Amount))
		case KindBurn:
			g.v.Burns++
			g.v.BurnAmount = g.v.BurnAmount.Add(AmountOf(m.Amount))
		}
		if m.Sender != "" {
			g.snd[m.Sender] = true
		}
		if m.Receiver != "" {
			g.rcv[m.Receiver] = true
		}
	}
	out := make([]Volume, 0, len(groups))
	for _, g := range groups {
		g.v.Senders, g.v.Receivers = int64(len(g.snd)), int64(len(g.rcv))
		out = append(out, g.v)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Jetton != out[j].Jetton {
			return out[i].Jetton < out[j].Jetton
		}
		return out[i].Bucket < out[j].Bucket
	})
	return out
}
