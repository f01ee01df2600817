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
	"fmt"
	"math/rand/v2"
	"strconv"

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
}

// typeMix is roughly mainnet's: mostly TON and jetton transfers.
var typeMix = []struct {
	name   string
	weight int
}{
	{chain.TonTransfer, 40}, {chain.JettonTransfer, 25}, {chain.SmartContractExec, 10},
	{chain.NftItemTransfer, 6}, {chain.JettonSwap, 6}, {chain.ContractDeploy, 4},
	{chain.JettonBurn, 3}, {chain.JettonMint, 3}, {chain.NftPurchase, 3},
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
	total := 0
	for _, t := range typeMix {
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
		pair := r.IntN(5) == 0 && n+1 < p.Actions
		traceID := chain.Hash(hash(p.Seed, "trace", uint64(trace)))
		for k := 0; k < 1 || (pair && k < 2); k++ {
			pick := r.IntN(total)
			typ := typeMix[0].name
			for _, t := range typeMix {
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
				a.TxHashes = append(a.TxHashes, h.Base64())
				a.TxLts = append(a.TxLts, lt-uint64(txs-i-1)*10)
			}
			a.TxHash = a.TxHashes[0]
			a.StartLt, a.EndLt = a.TxLts[0], lt
			a.StartUtime, a.EndUtime = utime-uint32(r.IntN(2)), utime
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

// build makes the participants and the value of one action.
func build(r *rand.Rand, p Params, typ string, n, hotEvery int) *chain.Action {
	pickAcct := func() string { return Account(p.Seed, r.IntN(max(1, p.Accounts))) }
	from, to := pickAcct(), pickAcct()
	if hotEvery > 0 && n%hotEvery == 0 {
		from = HotAccount(p.Seed, (n/hotEvery)%p.HotAccounts)
	}
	amount := strconv.FormatUint(uint64(r.Int64N(1e12)), 10)
	a := &chain.Action{Type: typ}
	link := func(addr, role string) {
		a.Accounts = append(a.Accounts, chain.ActionAccount{Address: addr, Role: role})
	}
	link(from, chain.RoleSender)
	link(to, chain.RoleRecipient)
	v := map[string]any{"source": from, "destination": to}
	switch typ {
	case chain.TonTransfer:
		v["value"] = amount
		v["comment"] = nil
		v["encrypted"] = false
		if r.IntN(3) == 0 {
			v["comment"] = "invoice " + strconv.Itoa(r.IntN(100000))
		}
	case chain.JettonTransfer, chain.JettonBurn, chain.JettonMint:
		master := addr(p.Seed, "master", r.IntN(50))
		sw, dw := addr(p.Seed, "jw", r.IntN(1<<30)), addr(p.Seed, "jw", r.IntN(1<<30))
		link(master, chain.RoleMaster)
		link(sw, chain.RoleSource)
		link(dw, chain.RoleDest)
		v = map[string]any{"sender": from, "recipient": to, "amount": amount + "000000000",
			"jetton_master": master, "sender_jetton_wallet": sw, "recipient_jetton_wallet": dw}
	case chain.NftItemTransfer, chain.NftPurchase:
		item := addr(p.Seed, "nft", r.IntN(1<<30))
		link(item, chain.RoleContract)
		v = map[string]any{"old_owner": from, "new_owner": to, "nft_item": item}
		if typ == chain.NftPurchase {
			v["price"] = amount
		}
	case chain.JettonSwap:
		pool := addr(p.Seed, "pool", r.IntN(20))
		link(pool, chain.RoleContract)
		v = map[string]any{"sender": from, "dex": "stonfi_v2", "pool": pool,
			"amount_in": amount, "amount_out": strconv.Itoa(r.IntN(1e9))}
	default: // SmartContractExec, ContractDeploy
		v = map[string]any{"source": from, "contract": to, "value": amount,
			"opcode": fmt.Sprintf("0x%08x", r.Uint32())}
	}
	a.Value = chain.NewValue(v)
	return a
}
