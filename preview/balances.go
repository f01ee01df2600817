package preview

import (
	"math/big"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// BalanceChanges are the net changes the trace makes: TON of every account
// it touches, and jettons of every jetton wallet whose balance its
// messages move.
type BalanceChanges struct {
	TON     []TonChange    `json:"ton"`
	Jettons []JettonChange `json:"jettons"`
}

// TonChange is an account's net TON change over the trace, in nanotons
// (negative: it paid or sent more than it received).
type TonChange struct {
	Account string         `json:"account"`
	Change  actions.BigInt `json:"change"`
}

// JettonChange is the net change of one jetton wallet, in the jetton's
// smallest units. Owner and master are what the trace shows: the owner
// from the transfer or burn request, the notification, or the transfer
// that named the recipient; the master from a burn notification or a mint.
// Unknown ones are "" (null).
type JettonChange struct {
	Owner        *string        `json:"owner"`
	JettonWallet string         `json:"jetton_wallet"`
	JettonMaster *string        `json:"jetton_master"`
	Change       actions.BigInt `json:"change"`
}

func balanceChanges(em *fees.Emulation, nodes []*chain.TraceNode) BalanceChanges {
	out := BalanceChanges{TON: []TonChange{}, Jettons: []JettonChange{}}
	order := []string{}
	net := map[string]*big.Int{}
	for i, et := range em.Transactions {
		acc := nodes[i].Tx.Account
		d, ok := net[acc]
		if !ok {
			d = new(big.Int)
			net[acc] = d
			order = append(order, acc)
		}
		d.Add(d, new(big.Int).SetUint64(et.BalanceAfter))
		d.Sub(d, new(big.Int).SetUint64(et.BalanceBefore))
	}
	for _, acc := range order {
		out.TON = append(out.TON, TonChange{Account: acc, Change: actions.BigInt(net[acc].String())})
	}
	out.Jettons = jettonChanges(nodes)
	return out
}
