package tonconnect

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/walletmsg"
)

// block is the fee-replay fixture: a real mainnet block, the state of every
// account it touches just before it, its config, and its 12 external
// messages (7 of them from v4R2 and v5R1 wallets) with what the chain
// charged for each.
type block struct {
	source   *fees.MemorySource
	at       uint32
	msgs     []fees.ExternalMessage
	accounts []chain.AccountState // every state of the block
}

var (
	blockOnce sync.Once
	blockData *block
	blockErr  error
)

func loadBlock(t testing.TB) *block {
	t.Helper()
	path := testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")
	blockOnce.Do(func() {
		p, err := ingest.ParseFile(path)
		if err != nil {
			blockErr = err
			return
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			blockErr = err
			return
		}
		b := &block{source: fees.NewMemorySource(p.Config), accounts: p.Accounts}
		if b.at, b.msgs, blockErr = fees.ReplayExternals(raw); blockErr != nil {
			return
		}
		for i := range p.Accounts {
			b.source.Put(&p.Accounts[i])
		}
		blockData = b
	})
	if blockErr != nil {
		t.Fatal(blockErr)
	}
	return blockData
}

// The logical time the block starts at: contracts that read it see the
// block's (as preview's replay tests run).
const blockLt = 76734069000000

func (b *block) estimator() *fees.Estimator {
	return fees.New(b.source, nil, fees.Options{Clock: fees.FixedClock(fees.ChainTime{Unix: b.at, Lt: blockLt})})
}

// reader reads the messages a wallet's signed external message (base64)
// carries: walletmsg.TonConnectOf for the wallets tongo knows.
type reader func(message string) ([]walletmsg.TonConnectMessage, []walletmsg.Sent, error)

// readerOf is the reader for the wallet a state holds, nil for an
// account that is no wallet TON Connect talks to.
func readerOf(info *accountinfo.Info) reader {
	if info.Wallet != nil {
		return func(m string) ([]walletmsg.TonConnectMessage, []walletmsg.Sent, error) {
			return walletmsg.TonConnectOf(m, info.Wallet.Version)
		}
	}
	if code, err := chain.DecodeRoot(info.Code); err == nil {
		if name, _ := isHighload(code); name == HighloadV3Name {
			return walletmsg.HighloadV3TonConnectOf
		}
	}
	return nil
}

// fromChain is the TON Connect request of what a signed external message
// of the block sent (read by read), all in TON Connect's mode. Highload v3
// adds "ignore errors" (2) to every mode it sends with, so its mode 1 is
// sent as 3.
func fromChain(t *testing.T, x fees.ExternalMessage, read reader, highload bool) (Params, []*boc.Cell) {
	t.Helper()
	msgs, sent, err := read(x.Message)
	if err != nil {
		t.Fatal(err)
	}
	p := Params{From: x.Account.ToHuman(true, false), ValidUntil: time.Now().Add(time.Hour).Unix()}
	var cells []*boc.Cell
	for i, s := range sent {
		if s.Mode != SendMode && (!highload || s.Mode|2 != SendMode) {
			t.Fatalf("fixture message sent with mode %d, not TON Connect's %d", s.Mode, SendMode)
		}
		cells = append(cells, s.Cell)
		p.Messages = append(p.Messages, Message(msgs[i]))
	}
	return p, cells
}

// TestPreviewFeesEqualChain: for every v4R2, v5R1 and highload v3 wallet
// of the block, the TON Connect request for the transfer it signed is
// built, unsigned, on the wallet's real state, and its emulation charges
// exactly what the chain charged the signed message, at every step of the
// trace. A highload v3 message takes the query id the wallet took.
func TestPreviewFeesEqualChain(t *testing.T) {
	b := loadBlock(t)
	est := b.estimator()
	ctx := context.Background()
	seen := map[string]int{}
	byRef := 0
	for _, x := range b.msgs {
		st, err := b.source.Account(ctx, chain.RawAddress(x.Account))
		if err != nil {
			t.Fatal(err)
		}
		info, err := accountinfo.Decode(st)
		if err != nil {
			t.Fatal(err)
		}
		read := readerOf(info)
		if read == nil {
			continue // not a wallet TON Connect talks to
		}
		t.Run(chain.RawAddress(x.Account)[:10], func(t *testing.T) {
			p, sent := fromChain(t, x, read, info.Wallet == nil)
			r, err := Parse(p)
			if err != nil {
				t.Fatal(err)
			}
			built, err := Build(r, st, time.Unix(int64(b.at), 0))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := chain.DecodeRoot(built.Request.Body)
			ext, _ := externalOf(t, x.Account, body).ToBocBase64()
			if info.Wallet != nil {
				if built.Wallet != info.Wallet.Version || int64(built.Seqno) != *info.Wallet.Seqno {
					t.Fatalf("built for %v seqno %d; the state says %v seqno %d", built.Wallet, built.Seqno, info.Wallet.Version, *info.Wallet.Seqno)
				}
			} else if ours, chains := v3QueryID(t, ext), v3QueryID(t, x.Message); ours != chains {
				t.Fatalf("query id %#x; the wallet sent %#x", ours, chains)
			}
			// The wallet's out messages are the ones the chain carried, bit
			// for bit (so the forward fees can only be the same).
			_, ours, err := read(ext)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sent {
				h1, _ := sent[i].Hash256()
				h2, _ := ours[i].Cell.Hash256()
				if h1 != h2 {
					// Wallet apps differ in one thing a request does not
					// say: some put a body that fits by reference. Ours with
					// that layout must then be the chain's message exactly.
					var m tlb.Message
					if err := tlb.Unmarshal(ours[i].Cell, &m); err != nil {
						t.Fatal(err)
					}
					m.Body.IsRight = true
					c := boc.NewCell()
					if err := tlb.Marshal(c, m); err != nil {
						t.Fatal(err)
					}
					if h3, _ := c.Hash256(); h3 != h1 {
						t.Fatalf("message %d: built %x, the chain's %x", i, h2, h1)
					}
					byRef++
					t.Skip("the wallet app put a body that fits by reference (TON Connect wallets differ here); otherwise the same message")
				}
			}
			res, err := est.Estimate(ctx, built.Request)
			if err != nil {
				t.Fatal(err)
			}
			charged := x.Charged
			charged.Type = res.SourceFees.Type
			if x.BodyByRef {
				t.Skip("the signed message put its body by reference; TON Connect wallets inline it")
			}
			if res.SourceFees != charged {
				t.Fatalf("source fees %+v, the chain charged %+v", res.SourceFees, charged)
			}
			// and the signed message's own estimate, step by step
			want, err := fees.ParseParams(fees.Params{Boc: x.Message})
			if err != nil {
				t.Fatal(err)
			}
			signed, err := est.Estimate(ctx, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(signed.DestinationFees) != len(res.DestinationFees) {
				t.Fatalf("%d destination fees, the signed message's %d", len(res.DestinationFees), len(signed.DestinationFees))
			}
			for i := range signed.DestinationFees {
				if signed.DestinationFees[i] != res.DestinationFees[i] {
					t.Fatalf("destination %d: %+v, signed %+v", i, res.DestinationFees[i], signed.DestinationFees[i])
				}
			}
			seen[built.Type]++
		})
	}
	t.Logf("fees equal for %v; %d messages laid out with the body by reference", seen, byRef)
	if seen[wallet.V4R2.ToString()] == 0 || seen[wallet.V5R1.ToString()] == 0 || seen[HighloadV3Name] == 0 {
		t.Fatalf("compared %v; want v4R2, v5R1 and highload v3 wallets", seen)
	}
}

// externalOf wraps a body into an external message to acc, for tongo's
// decoders (which read whole messages).
func externalOf(t *testing.T, acc ton.AccountID, body *boc.Cell) *boc.Cell {
	t.Helper()
	m := externalMsg(acc, body)
	c := boc.NewCell()
	if err := tlb.Marshal(c, m); err != nil {
		t.Fatal(err)
	}
	return c
}

// v3QueryID is the query id of a highload v3 external message (base64):
// shift and bit number after the subwallet id and send mode of the cell
// its body references.
func v3QueryID(t *testing.T, message string) uint64 {
	t.Helper()
	cells, err := boc.DeserializeBocBase64(message)
	if err != nil {
		t.Fatal(err)
	}
	var m tlb.Message
	if err := tlb.Unmarshal(cells[0], &m); err != nil {
		t.Fatal(err)
	}
	body := boc.Cell(m.Body.Value)
	inner, err := body.NextRef()
	if err == nil {
		err = inner.Skip(40)
	}
	if err != nil {
		t.Fatal(err)
	}
	id, err := inner.ReadUint(23)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// externalMsg is an external message to acc with body by reference.
func externalMsg(acc ton.AccountID, body *boc.Cell) tlb.Message {
	var m tlb.Message
	m.Info.SumType = "ExtInMsgInfo"
	m.Info.ExtInMsgInfo = &struct {
		Src       tlb.MsgAddress
		Dest      tlb.MsgAddress
		ImportFee tlb.VarUInteger16
	}{Src: tlb.NoneMsgAddress(), Dest: acc.ToMsgAddress()}
	m.Body = tlb.EitherRef[tlb.Any]{IsRight: true, Value: tlb.Any(*body)}
	return m
}

// fieldOf is the field an API error names (its message starts with it).
func fieldOf(t *testing.T, err error) string {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Kind != apperr.Invalid {
		t.Fatalf("want a 422 naming a field, got %v", err)
	}
	return ae.Field
}

// TestDeployWithStateInit: a wallet the chain has never seen, given its
// StateInit (TON Connect's walletStateInit), is previewed as its
// deployment: the root transaction runs the wallet's code for the first
// time (seqno 0) and sends the request's transfer on.
func TestDeployWithStateInit(t *testing.T) {
	b := loadBlock(t)
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wallet.NewFromPublicKey(pub, wallet.V5R1)
	if err != nil {
		t.Fatal(err)
	}
	si, err := w.StateInit()
	if err != nil {
		t.Fatal(err)
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, si); err != nil {
		t.Fatal(err)
	}
	siB64, _ := c.ToBocBase64()
	to := b.msgs[0].Account // a deployed wallet of the block
	r, err := Parse(Params{From: w.GetAddress().ToHuman(false, false), StateInit: siB64,
		Messages: []Message{{Address: to.ToHuman(false, false), Amount: "100000000"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, _ := b.source.Account(ctx, chain.RawAddress(r.From))
	built, err := Build(r, st, time.Unix(int64(b.at), 0))
	if err != nil {
		t.Fatal(err)
	}
	if !built.Deploy || built.Seqno != 0 || built.Wallet != wallet.V5R1 {
		t.Fatalf("built %+v; want a v5R1 deploy at seqno 0", built)
	}
	em, err := b.estimator().Emulate(ctx, built.Request)
	if err != nil {
		t.Fatal(err)
	}
	root, err := chain.ParseTransactionBOC(em.Transactions[0].BOC)
	if err != nil {
		t.Fatal(err)
	}
	if root.OrigStatus == root.EndStatus || root.EndStatus != chain.AccountActive || len(root.OutMsgs) != 1 {
		t.Fatalf("root transaction %s -> %s with %d out messages; want a deploy sending 1", root.OrigStatus, root.EndStatus, len(root.OutMsgs))
	}
	if len(em.Result.DestinationFees) != 1 {
		t.Fatalf("%d destination transactions, want the transfer's 1", len(em.Result.DestinationFees))
	}
}

// TestRefusals: every request that cannot be built is a 422 naming the
// field and why, before anything is emulated (or, for an expired
// valid_until, before the message runs).
func TestRefusals(t *testing.T) {
	b := loadBlock(t)
	ctx := context.Background()
	wal := b.msgs[0].Account // v5R1
	var notWallet ton.AccountID
	for i := range b.accounts {
		info, _ := accountinfo.Decode(&b.accounts[i])
		code, _ := chain.DecodeRoot(info.Code)
		if _, highload := isHighload(code); info.Status == accountinfo.StateActive && info.Wallet == nil && !highload {
			notWallet, _ = chain.ParseAddress(b.accounts[i].Address)
			break
		}
	}
	to := Message{Address: chain.RawAddress(wal), Amount: "1000"}
	five := []Message{to, to, to, to, to}
	_, other, _ := ed25519.GenerateKey(nil)
	ow, _ := wallet.NewFromPublicKey(other.Public().(ed25519.PublicKey), wallet.V4R2)
	osi, _ := ow.StateInit()
	oc := boc.NewCell()
	_ = tlb.Marshal(oc, osi)
	otherInit, _ := oc.ToBocBase64()
	fresh := ton.AccountID{Workchain: 0, Address: [32]byte{7, 7, 7}}
	cases := []struct {
		name  string
		p     Params
		field string
		says  string
	}{
		{"no from", Params{Messages: []Message{to}}, "from", "required"},
		{"bad from", Params{From: "EQ-nope", Messages: []Message{to}}, "from", "address"},
		{"no messages", Params{From: chain.RawAddress(wal)}, "messages", "at least one"},
		{"too many messages", Params{From: chain.RawAddress(wal), Messages: five}, "messages", "at most 4"},
		{"bad amount", Params{From: chain.RawAddress(wal), Messages: []Message{{Address: to.Address, Amount: "-1"}}}, "messages[0].amount", "nanotons"},
		{"bad base64", Params{From: chain.RawAddress(wal), Messages: []Message{{Address: to.Address, Amount: "1", Payload: "%%%"}}}, "messages[0].payload", "base64"},
		{"bad state init", Params{From: chain.RawAddress(wal), Messages: []Message{{Address: to.Address, Amount: "1", StateInit: "te6cc"}}}, "messages[0].stateInit", ""},
		{"bad network", Params{From: chain.RawAddress(wal), Network: "1", Messages: []Message{to}}, "network", "-239"},
		{"unknown wallet", Params{From: chain.RawAddress(notWallet), Messages: []Message{to}}, "from", "not a wallet"},
		{"not deployed", Params{From: chain.RawAddress(fresh), Messages: []Message{to}}, "from", "not deployed"},
		{"state init of another wallet", Params{From: chain.RawAddress(fresh), StateInit: otherInit, Messages: []Message{to}}, "state_init", "does not hash"},
		{"expired", Params{From: chain.RawAddress(wal), ValidUntil: int64(b.at) - 1, Messages: []Message{to}}, "valid_until", "expired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse(c.p)
			if err == nil {
				st, _ := b.source.Account(ctx, chain.RawAddress(r.From))
				var built *Built
				if built, err = Build(r, st, time.Unix(int64(b.at), 0)); err == nil {
					_, err = b.estimator().Estimate(ctx, built.Request)
				}
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if got := fieldOf(t, err); got != c.field {
				t.Fatalf("names %q (%v), want %q", got, err, c.field)
			}
			if !strings.HasPrefix(err.Error(), c.field+": ") || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("message %q; want it to start with %q and say %q", err, c.field, c.says)
			}
		})
	}
}
