package fees

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
)

// v3Deploy is a wallet v3R2 deployment made from the code tongo ships: the
// StateInit, the address it hashes to, and a first external message that
// sends 0.1 TON to a fresh address.
type v3Deploy struct {
	code, data, body string
	addr             ton.AccountID
}

func newV3Deploy(t *testing.T, validUntil uint32) v3Deploy {
	t.Helper()
	code := wallet.GetCodeByVer(wallet.V3R2)
	data := boc.NewCell()
	_ = data.WriteUint(0, 32)         // seqno
	_ = data.WriteUint(698983191, 32) // subwallet id
	_ = data.WriteBytes(make([]byte, 32))
	si := tlb.StateInit{
		Code: tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *code}},
		Data: tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *data}},
	}
	addr, err := stateInitAddress(si, 0)
	if err != nil {
		t.Fatal(err)
	}
	dest := ton.AccountID{Workchain: 0, Address: [32]byte{1, 2, 3}}
	internal, mode, err := wallet.SimpleTransfer{Amount: 100_000_000, Address: dest}.ToInternal()
	if err != nil {
		t.Fatal(err)
	}
	ic := boc.NewCell()
	if err := tlb.Marshal(ic, internal); err != nil {
		t.Fatal(err)
	}
	body := boc.NewCell()
	_ = body.WriteBytes(make([]byte, 64)) // signature: ignored with ignore_chksig
	_ = body.WriteUint(698983191, 32)
	_ = body.WriteUint(uint64(validUntil), 32)
	_ = body.WriteUint(0, 32) // seqno
	_ = body.WriteUint(uint64(mode), 8)
	_ = body.AddRef(ic)
	return v3Deploy{code: bocB64(t, code), data: bocB64(t, data), body: bocB64(t, body), addr: addr}
}

func mustParams(t *testing.T, p Params) Request {
	t.Helper()
	r, err := ParseParams(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func wantKind(t *testing.T, err error, kind apperr.Kind, contains string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Kind != kind || !strings.Contains(ae.Public(), contains) {
		t.Fatalf("want kind %d containing %q, got %v", kind, contains, err)
	}
}

func TestDeployOfNonexistentAccount(t *testing.T) {
	r := loadReplay(t)
	d := newV3Deploy(t, r.genUtime+60)
	req := mustParams(t, Params{Address: d.addr.ToRaw(), Body: d.body, InitCode: d.code, InitData: d.data})
	receiver := ton.AccountID{Workchain: 0, Address: [32]byte{1, 2, 3}}

	// The receiver is an account the source knows nothing of: the trace
	// stops there instead of guessing that it does not exist.
	est := r.estimator(Options{})
	em, err := est.Emulate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	s := em.Result.SourceFees
	t.Logf("deploy: %+v dest=%+v stops=%+v", s, em.Result.DestinationFees, em.Stops)
	if s.GasFee == 0 || s.InFwdFee == 0 || s.FwdFee == 0 || s.StorageFee != 0 {
		t.Errorf("deploy fees %+v: want gas, import and forwarding fees, no storage", s)
	}
	if len(em.Result.DestinationFees) != 0 || len(em.Stops) != 1 ||
		em.Stops[0] != (Stop{Parent: 0, OutIndex: 0, Account: chain.RawAddress(receiver), Reason: StopUnknownAccount}) {
		t.Fatalf("unknown receiver: destination fees %+v, stops %+v", em.Result.DestinationFees, em.Stops)
	}
	if len(em.Transactions) != 1 || em.Transactions[0].Parent != -1 || em.Transactions[0].Fees != s {
		t.Fatalf("recorded transactions %+v", em.Transactions)
	}

	// Known not to exist (what a lite server answers): emulated.
	src := r.copySource()
	src.Put(nonexistent(t, receiver))
	at := time.Unix(int64(r.genUtime), 0)
	res, err := New(src, nil, Options{Now: func() time.Time { return at }}).Estimate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DestinationFees) != 1 || res.DestinationFees[0].InFwdFee != 0 {
		t.Errorf("destination fees %+v: want one transaction on the receiver", res.DestinationFees)
	}
}

// nonexistent is the state of an account known not to exist.
func nonexistent(t *testing.T, id ton.AccountID) *chain.AccountState {
	t.Helper()
	c := boc.NewCell()
	if err := tlb.Marshal(c, tlb.ShardAccount{Account: tlb.Account{SumType: "AccountNone"}}); err != nil {
		t.Fatal(err)
	}
	b, err := c.ToBoc()
	if err != nil {
		t.Fatal(err)
	}
	st, err := AccountStateFromBOC(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.Address = chain.RawAddress(id)
	return st
}

func TestUninitializedWithoutInit(t *testing.T) {
	r := loadReplay(t)
	d := newV3Deploy(t, r.genUtime+60)
	_, err := r.estimator(Options{}).Estimate(context.Background(), mustParams(t, Params{Address: d.addr.ToRaw(), Body: d.body}))
	// No state is held of the address: the answer says so, not that the
	// chain has it uninitialized.
	wantKind(t, err, apperr.NotFound, "holds no state of account")
	wantKind(t, err, apperr.NotFound, "give init_code and init_data")
}

func TestInitNotMatchingAddress(t *testing.T) {
	r := loadReplay(t)
	d := newV3Deploy(t, r.genUtime+60)
	other := ton.AccountID{Workchain: 0, Address: [32]byte{9}}
	_, err := r.estimator(Options{}).Estimate(context.Background(), mustParams(t, Params{
		Address: other.ToRaw(), Body: d.body, InitCode: d.code, InitData: d.data}))
	wantKind(t, err, apperr.Invalid, "init_code")
}

// TestExpiredIsNotAccepted runs the real messages a day after their block:
// every wallet refuses them as expired, and the error names the exit code.
func TestExpiredIsNotAccepted(t *testing.T) {
	r := loadReplay(t)
	late := time.Unix(int64(r.genUtime)+86400, 0)
	est := New(r.source, nil, Options{Now: func() time.Time { return late }})
	for _, x := range r.ext {
		_, err := est.Estimate(context.Background(), x.request(t))
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Kind != apperr.NotAccepted || !strings.Contains(ae.Msg, "exit code") {
			t.Errorf("%s: want not accepted with an exit code, got %v", short(x.Account), err)
			continue
		}
		t.Logf("%s: %s", short(x.Account), ae.Msg)
	}
}

// TestRealSignaturesPass: the mainnet messages carry valid signatures, so
// checking them changes nothing.
func TestRealSignaturesPass(t *testing.T) {
	r := loadReplay(t)
	est := r.estimator(Options{})
	for _, x := range r.ext {
		req := x.request(t)
		req.IgnoreChksig = false
		res, err := est.Estimate(context.Background(), req)
		if err != nil {
			t.Errorf("%s: %v", short(x.Account), err)
			continue
		}
		if res.SourceFees.GasFee != x.Charged.GasFee {
			t.Errorf("%s: gas %d with signature check, chain %d", short(x.Account), res.SourceFees.GasFee, x.Charged.GasFee)
		}
	}
}

// TestBadSignature flips a bit of a real signature: refused with the
// contract's bad-signature exit code when checked, accepted when ignored.
func TestBadSignature(t *testing.T) {
	r := loadReplay(t)
	est := r.estimator(Options{})
	x := r.ext[1]
	req := x.request(t)
	req.Body = append([]byte(nil), req.Body...)
	body, _ := decodeRoot(req.Body)
	// which end holds the signature depends on the wallet; flip both ends
	c := boc.NewCell()
	n := body.BitSize()
	for i := 0; i < n; i++ {
		bit, _ := body.ReadBit()
		_ = c.WriteBit(bit != (i == 0 || i == n-1))
	}
	for _, ref := range body.Refs() {
		_ = c.AddRef(ref)
	}
	req.Body, _ = c.ToBoc()
	req.IgnoreChksig = false
	_, err := est.Estimate(context.Background(), req)
	wantKind(t, err, apperr.NotAccepted, "signature")
	req.IgnoreChksig = true
	if _, err := est.Estimate(context.Background(), req); err != nil {
		t.Fatalf("with ignore_chksig: %v", err)
	}
}

func TestEmbeddedConfigFallback(t *testing.T) {
	r := loadReplay(t)
	src := NewMemorySource(nil)
	x := r.ext[0]
	st, _ := r.source.Account(context.Background(), chain.RawAddress(x.Account))
	src.Put(st)
	at := time.Unix(int64(r.genUtime), 0)
	res, err := New(src, nil, Options{Now: func() time.Time { return at }}).Estimate(context.Background(), x.request(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.ConfigSource != ConfigFromEmbedded {
		t.Fatalf("config source %q, want embedded", res.ConfigSource)
	}
	if res.SourceFees.GasFee == 0 {
		t.Fatal("silent zero gas fee")
	}
}

// TestForeignStateInitOnActiveAccount: the chain drops a message whose
// StateInit is not the account's before any code runs; the estimate says
// which field is wrong instead of reporting an exit code 0.
func TestForeignStateInitOnActiveAccount(t *testing.T) {
	r := loadReplay(t)
	x := r.ext[0]
	_, err := r.estimator(Options{}).Estimate(context.Background(), mustParams(t, Params{
		Address: x.Account.ToRaw(), Body: x.Body, InitCode: x.Body, InitData: x.Body}))
	wantKind(t, err, apperr.Invalid, "init_code and init_data do not hash to address")
}
