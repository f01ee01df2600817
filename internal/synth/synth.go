// Package synth generates realistic action data at any volume: the shapes,
// type mix, account fan-in and logical-time progression of mainnet actions,
// deterministic for a seed. It feeds the performance loader (1M actions) and
// the model-based API tests, which compare the server's answers with a
// reference evaluation over the same generated set. Real decoded chain data
// is covered by the import tests; this covers volume and every filter combination.
package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

// Params shape a data set.
type Params struct {
	Seed        uint64
	Actions     int // total actions
	Accounts    int // ordinary accounts
	HotAccounts int // accounts that take part in many actions
	HotActions  int // actions per hot account (spread evenly over time)
	StartUtime  uint32
	// SwapWeight, when set, replaces the swaps' weight in the type mix
	// (6 of 100 by default; 11 makes about a tenth of the actions swaps).
	SwapWeight int
	// Seconds, when set, spreads the set over that many seconds and its
	// logical time as mainnet's grows with time (LtPerSecond), instead of
	// about a second for every four traces: a year of candles, and lts
	// across several partitions, from any number of actions.
	Seconds uint32
}

// LtPerSecond is about how fast mainnet's logical time grows: 1e13 in
// some six months.
const LtPerSecond = 630_000

// typeMix is roughly mainnet's: mostly TON and jetton transfers.
var typeMix = []struct {
	name   string
	weight int
}{
	{"TonTransfer", 40}, {"JettonTransfer", 25}, {"SmartContractExec", 10},
	{"NftItemTransfer", 6}, {"JettonSwap", 6}, {"ContractDeploy", 4},
	{"JettonBurn", 3}, {"JettonMint", 3}, {"NftPurchase", 3},
}

// Account returns the raw address of ordinary account i (hot ones are
// HotAccount(i)); addresses are hashes, so they look like real ones.
func Account(seed uint64, i int) string { return addr(seed, "acct", i) }

// HotAccount returns the raw address of hot account i.
func HotAccount(seed uint64, i int) string { return addr(seed, "hot", i) }

func addr(seed uint64, kind string, i int) string {
	h := hash(seed, kind, uint64(i))
	return fmt.Sprintf("0:%X", h[:])
}

func hash(seed uint64, kind string, n uint64) [32]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], seed)
	binary.BigEndian.PutUint64(b[8:], n)
	return sha256.Sum256(append([]byte(kind), b[:]...))
}

// Generate calls emit for every action in ascending end_lt order. About one
// trace in five yields two actions that end at the same logical time, so
// ordering ties are broken by action_id exactly as in real traces.
func Generate(p Params, emit func(*chain.Action) error) error {
	r := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	mix := typeMix
	if p.SwapWeight > 0 {
		mix = append([]struct {
			name   string
			weight int
		}(nil), typeMix...)
		for i := range mix {
			if mix[i].name == "JettonSwap" {
				mix[i].weight = p.SwapWeight
			}
		}
	}
	total := 0
	for _, t := range mix {
		total += t.weight
	}
	// Every hotEvery-th action goes to the next hot account in turn, so each
	// hot account gets HotActions actions.
	hotEvery := 0
	if p.HotAccounts > 0 && p.HotActions > 0 {
		hotEvery = max(1, p.Actions/(p.HotActions*p.HotAccounts))
	}
	lt := uint64(47_000_000_000_000)
	utime := p.StartUtime
	trace := 0
	for n := 0; n < p.Actions; trace++ {
		lt += 1_000 + uint64(r.IntN(5_000))
		if r.IntN(4) == 0 {
			utime++
		}
		if p.Seconds > 0 { // the draws above stay, so the rest of the set is the same
			next := p.StartUtime + uint32(uint64(n)*uint64(p.Seconds)/uint64(p.Actions))
			if next > utime {
				lt += uint64(next-utime) * LtPerSecond
				utime = next
			}
		}
		pair := r.IntN(5) == 0 && n+1 < p.Actions
		traceID := chain.Hash(hash(p.Seed, "trace", uint64(trace)))
		for k := 0; k < 1 || (pair && k < 2); k++ {
			pick := r.IntN(total)
			typ := mix[0].name
			for _, t := range mix {
				if pick < t.weight {
					typ = t.name
					break
				}
				pick -= t.weight
			}
			a := build(r, p, typ, n, hotEvery)
			a.TraceID = traceID.Base64()
			txs := 1 + r.IntN(4)
			for i := 0; i < txs; i++ {
				h := chain.Hash(hash(p.Seed, "tx", uint64(n)*8+uint64(i)))
				a.Transactions = append(a.Transactions, h.Base64())
				a.TxLts = append(a.TxLts, lt-uint64(txs-i-1)*10)
			}
			a.TxHash = a.Transactions[0]
			a.StartLt, a.EndLt = a.TxLts[0], lt
			a.StartUtime, a.EndUtime = utime-uint32(r.IntN(2)), utime
			a.TraceEndLt, a.TraceEndUtime = lt, utime
			// Traces end in masterchain blocks a few at a time; some are
			// not known (pending, or data without blocks).
			if trace%7 != 0 {
				seqno := 40_000_000 + uint32(trace/3)
				a.McSeqno = &seqno
			}
			id := hash(p.Seed, "action", uint64(n))
			a.ActionID = fmt.Sprintf("%x", id[:])
			if r.IntN(20) == 0 {
				a.Status = chain.StatusFailed
			} else {
				a.Status = chain.StatusOK
			}
			if err := emit(a); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// build makes the value of one action in its declared shape; its
// participants come from the value as they do for decoded actions.
func build(r *rand.Rand, p Params, typ string, n, hotEvery int) *chain.Action {
	pickAcct := func() actions.Address { return actions.Address(Account(p.Seed, r.IntN(max(1, p.Accounts)))) }
	from, to := pickAcct(), pickAcct()
	if hotEvery > 0 && n%hotEvery == 0 {
		from = actions.Address(HotAccount(p.Seed, (n/hotEvery)%p.HotAccounts))
	}
	amount := actions.BigInt(strconv.FormatUint(uint64(r.Int64N(1e12)), 10))
	named := func(kind string, n int) actions.Address { return actions.Address(addr(p.Seed, kind, r.IntN(n))) }
	var v any
	switch typ {
	case "TonTransfer":
		t := &actions.TonTransfer{Sender: from, Recipient: to, Amount: amount}
		if r.IntN(3) == 0 {
			t.Comment = actions.Text("invoice " + strconv.Itoa(r.IntN(100000)))
		}
		v = t
	case "JettonTransfer":
		v = &actions.JettonTransfer{Sender: from, Recipient: to, Amount: amount + "000000000",
			JettonMaster: named("master", 50), SenderWallet: named("jw", 1<<30), RecipientWallet: named("jw", 1<<30)}
	case "JettonBurn":
		v = &actions.JettonBurn{Owner: from, Amount: amount, JettonMaster: named("master", 50), JettonWallet: named("jw", 1<<30)}
	case "JettonMint":
		v = &actions.JettonMint{Recipient: to, Minter: from, Amount: amount, JettonMaster: named("master", 50), RecipientWallet: named("jw", 1<<30)}
	case "NftItemTransfer":
		v = &actions.NftItemTransfer{Sender: from, Recipient: to, Nft: named("nft", 1<<30)}
	case "NftPurchase":
		v = &actions.NftPurchase{Seller: from, Buyer: to, Nft: named("nft", 1<<30), Price: amount}
	case "JettonSwap":
		pool := named("pool", 20)
		_ = r.IntN(1e9) // keeps the draws of the rest of the set as they were
		v = swap(p.Seed, n, from, pool)
	case "ContractDeploy":
		v = &actions.ContractDeploy{Deployer: from, Address: to, Amount: amount}
	default: // SmartContractExec
		v = &actions.SmartContractExec{Sender: from, Contract: to, Amount: amount,
			Opcode: actions.Text(fmt.Sprintf("0x%08x", r.Uint32()))}
	}
	a := &chain.Action{Type: typ}
	a.Value, _ = json.Marshal(v)
	a.Participants, a.Addresses = actions.Participants(v, nil)
	a.Accounts = a.Addresses
	return a
}

// walletKinds are the interfaces of the accounts Directory makes, about as
// mainnet's active accounts split: mostly wallets, then jetton wallets.
var walletKinds = [][]string{{"wallet_v4r2"}, {"wallet_v5r1"}, {"wallet_v3r2"}, {"jetton_wallet"}, {"nft_item"}, nil}

// Directory calls emit with what the address book of the generated set
// knows of each account (ordinary and hot): an active state with a
// balance, what its code is, and for one account in twenty a .ton name,
// so that the address book is measured at its real cost, not with empty
// tables. Deterministic for the seed, like Generate.
func Directory(p Params, emit func(chain.AccountState, *chain.DNSName) error) error {
	r := rand.New(rand.NewPCG(p.Seed^0x5bd1e995, p.Seed))
	one := func(addr string, i int) error {
		kind := walletKinds[r.IntN(len(walletKinds))]
		st := chain.AccountState{Address: addr, Status: "active", IsWallet: len(kind) > 0 && strings.HasPrefix(kind[0], "wallet"),
			Balance: uint64(r.Int64N(1e13)), LastTxLt: 47_000_000_000_000 + uint64(r.Int64N(1e12)),
			LastTxHash: chain.Hash(hash(p.Seed, "state", uint64(i))), ReadAtUtime: p.StartUtime, Interfaces: kind}
		var dns *chain.DNSName
		if i%20 == 0 {
			dns = &chain.DNSName{Address: addr, Domain: fmt.Sprintf("user%d.ton", i)}
		}
		return emit(st, dns)
	}
	for i := 0; i < p.Accounts; i++ {
		if err := one(Account(p.Seed, i), i); err != nil {
			return err
		}
	}
	for i := 0; i < p.HotAccounts; i++ {
		if err := one(HotAccount(p.Seed, i), p.Accounts+i); err != nil {
			return err
		}
	}
	return nil
}

// swapMasters is how many jettons the swaps trade (the transfers' masters
// come from the same set, so each traded jetton has transfers too).
const swapMasters = 50

// traderMasters is how many of them one trader trades.
const traderMasters = 3

// swap makes a realistic swap: a jetton bought or sold for TON (or USD₮,
// one in ten), one in eight routed jetton -> TON -> jetton through two
// pools; the price of each jetton wanders around a level of its own
// (from 0.0001 to 10 TON) over the set, and the TON side is 0.1 to 500
// TON, now and then dust. A trader keeps to a few jettons of its own, as
// people do, so its sells meet its earlier buys, some above their average
// cost and some below (the realized results of analytics need both).
// Drawn from a generator of its own (seeded by the action's number), so
// the rest of the set does not change with it.
func swap(seed uint64, n int, sender, pool actions.Address) *actions.JettonSwap {
	r := rand.New(rand.NewPCG(seed^0x5357415053, uint64(n)))
	h := sha256.Sum256([]byte(sender))
	own := binary.BigEndian.Uint32(h[:4]) % swapMasters
	jetton := func() (actions.Address, float64) {
		m := (int(own) + r.IntN(traderMasters)) % swapMasters
		level := math.Pow(10, -4+5*float64(m)/swapMasters)
		// A slow wave per jetton and a little noise per trade.
		return actions.Address(addr(seed, "master", m)), level * (1 + 0.3*math.Sin(float64(n)/5000+float64(m))) * (0.98 + 0.04*r.Float64())
	}
	tonAmount := 0.1 * math.Pow(5000, r.Float64())
	if r.IntN(50) == 0 {
		tonAmount = 0.005 // dust
	}
	nano := func(x float64, decimals int) actions.BigInt {
		return actions.BigInt(strconv.FormatFloat(math.Max(1, math.Round(x*math.Pow(10, float64(decimals)))), 'f', 0, 64))
	}
	master, price := jetton()
	v := &actions.JettonSwap{Sender: sender, Recipient: sender, Dex: "stonfi_v2", Pool: pool}
	switch k := r.IntN(40); {
	case k < 5: // through TON: jetton -> TON -> other jetton
		other, p2 := jetton()
		in, mid, out := nano(tonAmount/price, 9), nano(tonAmount, 9), nano(tonAmount/p2, 9)
		v.JettonMasterIn, v.JettonMasterOut, v.AmountIn, v.AmountOut = master, other, in, out
		v.PeerSwaps = []actions.PeerSwap{{AssetIn: master, AmountIn: in, AmountOut: mid}, {AmountIn: mid, AssetOut: other, AmountOut: out}}
	case k < 9: // against USD₮ (TON at about 3 USD)
		usdt := actions.Address(usdtMaster)
		if r.IntN(2) == 0 {
			v.JettonMasterIn, v.AmountIn, v.JettonMasterOut, v.AmountOut = usdt, nano(tonAmount*3, 6), master, nano(tonAmount/price, 9)
		} else {
			v.JettonMasterIn, v.AmountIn, v.JettonMasterOut, v.AmountOut = master, nano(tonAmount/price, 9), usdt, nano(tonAmount*3, 6)
		}
	case k < 25: // buy for TON
		v.AmountIn, v.JettonMasterOut, v.AmountOut = nano(tonAmount, 9), master, nano(tonAmount/price, 9)
	default: // sell for TON
		v.JettonMasterIn, v.AmountIn, v.AmountOut = master, nano(tonAmount/price, 9), nano(tonAmount, 9)
	}
	return v
}

// usdtMaster is USD₮'s master on mainnet.
const usdtMaster = "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"
