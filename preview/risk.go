package preview

import (
	"cmp"
	"encoding/json"
	"math/big"
	"slices"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// Risk is what the sender of the previewed message can lose, read from the
// emulated trace: a wallet shows it before the user signs.
type Risk struct {
	// Sender is the account the external message runs on.
	Sender string `json:"sender"`
	// TonOut is the most nanotons the sender parts with: the values of the
	// messages it sends plus the fees of its transaction; when SendsAll,
	// its whole balance (what a mode 128 or 32 message takes, whatever the
	// balance is when the message lands).
	TonOut actions.BigInt `json:"ton_out"`
	// SendsAll is true when the sender's transaction leaves it nothing: a
	// message with send mode 128 (all the balance) or 32 (destroy the
	// account). Read from the effect, so it holds for any contract.
	SendsAll bool         `json:"sends_all"`
	Jettons  []RiskJetton `json:"jettons"`
	Nfts     []RiskNft    `json:"nfts"`
	// ContractsDeployed are the accounts the trace deploys (the sender's
	// own deployment included), raw.
	ContractsDeployed []string `json:"contracts_deployed"`
	// Fails is true when any transaction of the trace whose code ran fails:
	// its compute or action phase did not succeed, it aborted, or its code
	// threw after committing (a DEX pool refusing a swap pays back with
	// exit code 304).
	// Bounces when any of its messages bounced back.
	Fails   bool `json:"fails"`
	Bounces bool `json:"bounces"`
	// TotalFees is every transaction's total fees summed, in nanotons.
	TotalFees uint64 `json:"total_fees"`
}

// RiskJetton is one jetton transfer or burn the sender asks its jetton
// wallet for: the amount in the jetton's smallest units. The master is
// what the trace shows of it (null when unknown); symbol and decimals are
// the token registry's, when it knows the jetton.
type RiskJetton struct {
	JettonWallet string         `json:"jetton_wallet"`
	JettonMaster *string        `json:"jetton_master"`
	Amount       actions.BigInt `json:"amount"`
	Symbol       *string        `json:"symbol"`
	Decimals     *int           `json:"decimals"`
}

// RiskNft is one NFT item the sender asks to transfer away.
type RiskNft struct {
	Nft        string  `json:"nft"`
	Collection *string `json:"collection"`
}

// TEP-74 and TEP-62 requests an owner sends.
const (
	opJettonTransfer = 0x0f8a7ea5
	opJettonBurn     = 0x595f07bc
	opNftTransfer    = 0x5fcc3d14
)

func riskOf(em *fees.Emulation, nodes []*chain.TraceNode, bc BalanceChanges, all []*chain.Action) Risk {
	root := nodes[0].Tx
	r := Risk{Sender: root.Account, Jettons: []RiskJetton{}, Nfts: []RiskNft{}, ContractsDeployed: []string{}}
	for _, n := range nodes {
		t := n.Tx
		r.TotalFees += t.TotalFees
		r.Fails = r.Fails || failed(t)
		if t.InMsg != nil && t.InMsg.Bounced {
			r.Bounces = true
		}
		if (t.OrigStatus == chain.AccountUninit || t.OrigStatus == chain.AccountNonexist) && t.EndStatus == chain.AccountActive {
			r.ContractsDeployed = append(r.ContractsDeployed, t.Account)
		}
	}
	// The sender's own transactions: the root's and those on messages it
	// sends itself (highload v3 sends a batch through itself). What they
	// send elsewhere, and their fees, is what it parts with.
	own := []int{0}
	for i := 1; i < len(em.Transactions); i++ {
		if nodes[i].Tx.Account == root.Account && slices.Contains(own, em.Transactions[i].Parent) {
			own = append(own, i)
		}
	}
	out := new(big.Int)
	var sent []chain.Message
	for _, i := range own {
		t := nodes[i].Tx
		out.Add(out, new(big.Int).SetUint64(t.TotalFees))
		for _, m := range t.OutMsgs {
			if m.Destination != root.Account {
				out.Add(out, new(big.Int).SetUint64(m.Value))
				sent = append(sent, m)
			}
		}
	}
	last := own[len(own)-1]
	if len(sent) > 0 && (em.Transactions[last].BalanceAfter == 0 || nodes[last].Tx.Destroyed) {
		r.SendsAll = true
		out.SetUint64(em.Transactions[0].BalanceBefore)
	}
	r.TonOut = actions.BigInt(out.String())
	masters, collections := assetsOf(bc, all)
	for _, m := range sent {
		if m.Opcode == nil || m.Bounced {
			continue
		}
		switch *m.Opcode {
		case opJettonTransfer, opJettonBurn:
			h, err := readJettonHead(m.Body, false)
			if err != nil {
				continue // not a well-formed request: the wallet refuses it
			}
			j := RiskJetton{JettonWallet: m.Destination, Amount: actions.BigInt(h.amount.String())}
			if master, ok := masters[m.Destination]; ok {
				j.JettonMaster = &master
			}
			r.Jettons = append(r.Jettons, j)
		case opNftTransfer:
			n := RiskNft{Nft: m.Destination}
			if c, ok := collections[m.Destination]; ok {
				n.Collection = &c
			}
			r.Nfts = append(r.Nfts, n)
		}
	}
	return r
}

// failed: a transaction whose code ran and refused. One whose compute
// phase was skipped (a notification carrying too little TON to run, a
// message to an account without code) refused nothing; if it bounced, the
// bounce is what the risk reports.
func failed(t *chain.Transaction) bool {
	if t.ComputeSkipped {
		return false
	}
	return !t.Success() || (t.ComputeExitCode != 0 && t.ComputeExitCode != 1)
}

// assetsOf reads, from what the preview already decoded, the master of each
// jetton wallet and the collection of each NFT item it names.
func assetsOf(bc BalanceChanges, all []*chain.Action) (masters, collections map[string]string) {
	masters, collections = map[string]string{}, map[string]string{}
	for _, c := range bc.Jettons {
		if c.JettonMaster != nil && *c.JettonMaster != "" {
			masters[c.JettonWallet] = *c.JettonMaster
		}
	}
	for _, a := range all {
		var v struct {
			SenderWallet   string `json:"sender_wallet"`
			JettonMaster   string `json:"jetton_master"`    // a transfer, a burn
			JettonMasterIn string `json:"jetton_master_in"` // a swap
			Nft            string `json:"nft"`
			Collection     string `json:"collection"`
		}
		if json.Unmarshal(a.Value, &v) != nil {
			continue
		}
		if m := cmp.Or(v.JettonMaster, v.JettonMasterIn); v.SenderWallet != "" && m != "" {
			masters[v.SenderWallet] = m
		}
		if v.Nft != "" && v.Collection != "" {
			collections[v.Nft] = v.Collection
		}
	}
	return masters, collections
}

// Name fills the jettons' symbol and decimals from the token registry's
// metadata (keyed by master).
func (r *Risk) Name(md chain.Metadata) {
	for i := range r.Jettons {
		j := &r.Jettons[i]
		if j.JettonMaster == nil {
			continue
		}
		if t := md[*j.JettonMaster]; t != nil && t.FetchedAt != nil {
			j.Symbol = t.Symbol
			if t.Decimals != nil {
				d := *t.Decimals
				j.Decimals = &d
			}
		}
	}
}

// masters are the jetton masters the risk names: the address book and
// metadata cover them.
func (r *Risk) masters() []string {
	var out []string
	for _, j := range r.Jettons {
		if j.JettonMaster != nil && !slices.Contains(out, *j.JettonMaster) {
			out = append(out, *j.JettonMaster)
		}
	}
	return out
}
