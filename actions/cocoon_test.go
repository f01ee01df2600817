package actions_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
)

func init() {
	for _, typ := range []string{"CocoonWorkerPayout", "CocoonProxyPayout", "CocoonProxyCharge", "CocoonRegisterProxy",
		"CocoonUnregisterProxy", "CocoonClientRequestRefund", "CocoonGrantRefund", "CocoonClientWithdraw"} {
		setFloor(typ, 1, 1)
	}
}

// Cocoon op codes of the tests (imports/messages.tolk of the Cocoon
// contracts, as tongo's abi-tolk/schemas/cocoon carries them).
const (
	coctExcesses        = 0x2565934c
	coctPayout          = 0xc59a7cd3
	coctProxyRequest    = 0x65448ff4
	coctRefundGranted   = 0xc68ebc7b
	coctTopUpPayload    = 0x5cfc6b87
	coctRegisterPayload = 0xa35cb580
	coctCharge          = 0xbb63ff93
	coctWorkerPayout    = 0xf5f26a36 // the last payout
	coctWorkerRequest   = 0x4d725d2c
	coctWorkerPayPart   = 0x08e7d036
	coctTopUp           = 0xf172e6c2
	coctRegister        = 0xc45f9f3b
	coctChangeSecret    = 0xa9357034
	coctIncreaseStake   = 0x6a1f6a60
	coctRequestRefund   = 0xfafa6cc1
)

func TestGoldenCocoon(t *testing.T) {
	checkGoldens(t, []goldenCase{
		{
			// A wallet submits a proxy-signed payout (0xa040ad28) to a worker
			// contract, which asks its proxy (worker_proxy_request 0x4d725d2c,
			// state 0, 73063940556 tokens, worker part 4500148290); the proxy
			// pays the worker's owner 4500148290 (payout 0xc59a7cd3) and
			// returns the excess to the wallet. Right: one CocoonWorkerPayout,
			// ok (the owner's payout transaction did not abort), over all 5
			// transactions; new_tokens and expected_address are the signed
			// payload's (the worker's own address), as the contract checks it.
			name: "cocoon_worker_payout",
			file: "toncenter-traces/traces/1LzTIRFPDw1CixKXM9wxSE5zxTg7okb2kstnP3GQhNU=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, coctWorkerRequest) })
			},
			want: []string{"CocoonWorkerPayout:ok"},
		},
		{
			// The owner's wallet has its Cocoon wallet (owner_wallet_send_message
			// 0x9c69f376) ask a client contract for a refund (0xfafa6cc1). The
			// client's balance is not above its stake, so it only tells its
			// proxy (client_proxy_request of 1 nanoton, which fails there) and
			// returns the excess to the Cocoon wallet. Right: one
			// CocoonClientRequestRefund, ok (the client accepted), via_wallet,
			// owner = the Cocoon wallet, nothing refunded at once; the proxy's
			// failure is no failure of the request.
			name: "cocoon_request_refund_via_wallet",
			file: "toncenter-traces/traces/A88GSRUqsE9po3lrzfdNf9D9XwXzDu7vQ9BqGx1VS94=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, coctRequestRefund) })
			},
			want: []string{"CocoonClientRequestRefund:ok"},
		},
		{
			// An owner withdraws (0xda068e78) the balance above the stake: the
			// client asks its proxy to pay 999985640 (client_proxy_refund_granted
			// payload), the proxy pays the owner, whose transaction aborts on
			// the payout (exit 1040), and returns the excess. Right: one
			// CocoonClientWithdraw, ok as toncenter decides it (the client
			// accepted; the payout is not bounceable, so the coins stay with
			// the owner), amount 999985640.
			name: "cocoon_client_withdraw",
			file: "toncenter-traces/traces/K-nxIQ9D2cc51j_BfU2nurITZia3POGyoZkiSeP9qqI=.json",
			pick: func(tr *chain.Trace) bool {
				return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, 0xda068e78) })
			},
			want: []string{"CocoonClientWithdraw:ok"},
		},
	})
}

// Accounts of the synthetic Cocoon traces.
const (
	coctOwner  = "0:F88EACAE633FAAFBBAF40F843BA54977C77D573E8582337244A5F745B84F8F2B"
	coctClient = "0:38B9DB6796941103B4FF1CB3DC8E312FC936A226DF2A1C3FB7ADC2ED2459EBCF"
	coctProxy  = "0:54BBB810AB6BA5D74F78B71F0815291EA9B84C3AC85D87F11BE5079B6AEB267E"
	coctWorker = "0:3120737EC3A10FC6331A16C93EC88203A0342AB4AC96671E6163E39CBC2F69C4"
)

// TestCocoonOwnerRequests checks the client owner's requests that no
// labelled trace has, on traces built from the message layouts of
// imports/messages.tolk and the flows of cocoon_client.tolk and
// cocoon_proxy.tolk: the owner's wallet sends the request to the client,
// which sends client_proxy_request to its proxy and returns the excess (or
// lets the proxy return it).
func TestCocoonOwnerRequests(t *testing.T) {
	proxyRequest := func(payload *boc.Cell, kids ...*lzsTx) *lzsTx {
		return &lzsTx{account: coctProxy, from: coctClient, op: coctProxyRequest, value: 1, kids: kids,
			body: cocoonProxyRequestBody(7, coctOwner, payload)}
	}
	excess := func(from, to string) *lzsTx {
		return &lzsTx{account: to, from: from, op: coctExcesses, value: 5_000_000, body: opQuery(coctExcesses, 7)}
	}
	flow := func(op uint32, body *boc.Cell, failed bool, kids ...*lzsTx) *chain.Trace {
		req := &lzsTx{account: coctClient, from: coctOwner, op: op, value: 2_000_000_000, body: body, failed: failed, kids: kids}
		return lzsTrace(&lzsTx{account: coctOwner, external: true, kids: []*lzsTx{req}})
	}
	for _, tc := range []struct {
		name   string
		tr     *chain.Trace
		typ    string
		status string
		txs    int
		want   map[string]any
	}{
		{
			// ExtClientTopUp{queryId topUpAmount sendExcessesTo}: the client
			// sends everything to the proxy with client_proxy_top_up, and the
			// proxy returns the excess.
			name: "top up",
			tr: flow(coctTopUp, cocoonBody(coctTopUp, 7, coins(1_500_000_000), addr(coctOwner)), false,
				proxyRequest(cocoonBody(coctTopUpPayload, -1, coins(1_500_000_000), addr(coctOwner)), excess(coctProxy, coctOwner))),
			typ: "CocoonClientTopUp", status: chain.StatusOK, txs: 4,
			want: map[string]any{"sender": coctOwner, "client": coctClient, "proxy": coctProxy, "amount": "1500000000",
				"query_id": "7", "excesses_to": coctOwner},
		},
		{
			// OwnerClientRegister{queryId nonce sendExcessesTo}.
			name: "register",
			tr: flow(coctRegister, cocoonBody(coctRegister, 7, u64(123456), addr(coctOwner)), false,
				proxyRequest(cocoonBody(coctRegisterPayload, -1)), excess(coctClient, coctOwner)),
			typ: "CocoonClientRegister", status: chain.StatusOK, txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "nonce": "123456",
				"query_id": "7", "excesses_to": coctOwner},
		},
		{
			// OwnerClientChangeSecretHash{queryId newSecretHash:uint256 sendExcessesTo}.
			name: "change secret hash",
			tr: flow(coctChangeSecret, cocoonBody(coctChangeSecret, 7, u256("0abc0000000000000000000000000000000000000000000000000000000000ff"), addr(coctOwner)), false,
				proxyRequest(nil), excess(coctClient, coctOwner)),
			typ: "CocoonClientChangeSecretHash", status: chain.StatusOK, txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy,
				"new_secret_hash": "abc0000000000000000000000000000000000000000000000000000000000ff", "query_id": "7"},
		},
		{
			// OwnerClientIncreaseStake{queryId newStake sendExcessesTo}.
			name: "increase stake",
			tr: flow(coctIncreaseStake, cocoonBody(coctIncreaseStake, 7, coins(3_000_000_000), addr(coctOwner)), false,
				proxyRequest(nil), excess(coctClient, coctOwner)),
			typ: "CocoonClientIncreaseStake", status: chain.StatusOK, txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "new_stake": "3000000000", "query_id": "7"},
		},
		{
			// A refund request while the balance is above the stake: the
			// client asks the proxy to pay back the difference at once
			// (client_proxy_refund_granted), and the proxy pays the owner and
			// returns the excess. Toncenter's matcher misses this variant.
			name: "request refund with payout",
			tr: flow(coctRequestRefund, cocoonBody(coctRequestRefund, 7, addr(coctOwner)), false,
				proxyRequest(cocoonBody(coctRefundGranted, -1, coins(700_000_000), addr(coctOwner)),
					&lzsTx{account: coctOwner, from: coctProxy, op: coctPayout, value: 700_000_000, body: opQuery(coctPayout, 7)},
					excess(coctProxy, coctOwner))),
			typ: "CocoonClientRequestRefund", status: chain.StatusOK, txs: 5,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "via_wallet": false,
				"refund_amount": "700000000", "forced": false, "query_id": "7"},
		},
		{
			// A request the client rejects (not from its owner, closed):
			// nothing is sent on; the request failed.
			name: "increase stake rejected",
			tr:   flow(coctIncreaseStake, cocoonBody(coctIncreaseStake, 7, coins(3_000_000_000), addr(coctOwner)), true),
			typ:  "CocoonClientIncreaseStake", status: chain.StatusFailed, txs: 2,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "new_stake": "3000000000"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { checkOnlyAction(t, tc.tr, tc.typ, tc.status, tc.txs, tc.want) })
	}
}

// TestCocoonSigned checks proxy-signed requests whose facts sit in the
// signed payload (SignedMessage{op queryId sendExcessesTo signature
// ^payload}, payload {op queryId newTokens expectedMyAddress}), and
// toncenter's status rules: a payout is failed when the payout's receiving
// transaction aborted; a charge the client rejects bounces and is failed.
func TestCocoonSigned(t *testing.T) {
	const submitter = "0:3C02D2FAE2B263048DA2C03AAF0C2BEB208F6828C3547D4A86E19A98F1BFAABA"
	signed := func(op uint32, tokens uint64, expected string) *boc.Cell {
		payload := cocoonBody(op, 9, u64(tokens), addr(expected))
		c := cocoonBody(op, 9, addr(submitter), bits512())
		must(c.AddRef(payload))
		return c
	}
	t.Run("last worker payout, payout aborted", func(t *testing.T) {
		req := cocoonBody(coctWorkerRequest, 9, addr(coctOwner), uint2(2), u64(5000))
		must(req.WriteBit(true))
		must(req.AddRef(cocoonBody(coctWorkerPayPart, -1, coins(400), coins(100), addr(submitter))))
		tr := lzsTrace(&lzsTx{account: submitter, external: true, kids: []*lzsTx{
			{account: coctWorker, from: submitter, op: coctWorkerPayout, value: 500_000_000, body: signed(coctWorkerPayout, 5000, coctWorker),
				kids: []*lzsTx{{account: coctProxy, from: coctWorker, op: coctWorkerRequest, value: 490_000_000, body: req,
					kids: []*lzsTx{
						{account: coctOwner, from: coctProxy, op: coctPayout, value: 400, body: opQuery(coctPayout, 9), failed: true},
						{account: submitter, from: coctProxy, op: coctExcesses, value: 480_000_000, body: opQuery(coctExcesses, 9)},
					}}}},
		}})
		checkOnlyAction(t, tr, "CocoonWorkerPayout", chain.StatusFailed, 5, map[string]any{
			"sender": submitter, "worker": coctWorker, "proxy": coctProxy, "worker_owner": coctOwner, "amount": "400",
			"payout_type": "last", "query_id": "9", "new_tokens": "5000", "expected_address": coctWorker,
			"worker_state": float64(2), "worker_tokens": "5000", "worker_part": "400", "proxy_part": "100", "excesses_to": submitter})
	})
	t.Run("charge rejected", func(t *testing.T) {
		tr := lzsTrace(&lzsTx{account: submitter, external: true, kids: []*lzsTx{
			{account: coctClient, from: submitter, op: coctCharge, value: 700_000_000, body: signed(coctCharge, 777, coctClient), failed: true,
				kids: []*lzsTx{{account: submitter, from: coctClient, op: 0xffffffff, value: 690_000_000, bounced: true, body: opQuery(0xffffffff, 0)}}},
		}})
		checkOnlyAction(t, tr, "CocoonProxyCharge", chain.StatusFailed, 3, map[string]any{
			"sender": submitter, "client": coctClient, "query_id": "9", "new_tokens_used": "777",
			"expected_address": coctClient, "excesses_to": submitter})
	})
}

// checkOnlyAction classifies tr and wants exactly one action: of the type,
// with the status, over txs transactions, whose value has the fields want
// names (and only those of its address and number fields).
func checkOnlyAction(t *testing.T, tr *chain.Trace, typ, status string, txs int, want map[string]any) {
	t.Helper()
	got := actions.Classify(tr, nil)
	if len(got) != 1 || got[0].Type != typ {
		t.Fatalf("got %v, want one %s", kindsOf(got), typ)
	}
	a := got[0]
	if a.Status != status || len(a.Transactions) != txs {
		t.Errorf("%s over %d transactions, want %s over %d", a.Status, len(a.Transactions), status, txs)
	}
	var v map[string]any
	if err := json.Unmarshal(a.Value, &v); err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v (value %s)", k, v[k], w, a.Value)
		}
	}
}

// cocoonBody writes op, then query id (unless negative), then the parts.
func cocoonBody(op uint32, queryID int64, parts ...func(*boc.Cell)) *boc.Cell {
	c := boc.NewCell()
	must(c.WriteUint(uint64(op), 32))
	if queryID >= 0 {
		must(c.WriteUint(uint64(queryID), 64))
	}
	for _, p := range parts {
		p(c)
	}
	return c
}

func opQuery(op uint32, queryID uint64) *boc.Cell { return cocoonBody(op, int64(queryID)) }

// cocoonProxyRequestBody: ClientProxyRequest{queryId ownerAddress
// ^ClientStateData payload:(Maybe ^Cell)}.
func cocoonProxyRequestBody(queryID uint64, owner string, payload *boc.Cell) *boc.Cell {
	c := cocoonBody(coctProxyRequest, int64(queryID), addr(owner))
	must(c.AddRef(boc.NewCell()))
	must(c.WriteBit(payload != nil))
	if payload != nil {
		must(c.AddRef(payload))
	}
	return c
}

func addr(raw string) func(*boc.Cell) { return func(c *boc.Cell) { writeAddr(c, raw) } }

func u64(v uint64) func(*boc.Cell) { return func(c *boc.Cell) { must(c.WriteUint(v, 64)) } }

func uint2(v uint64) func(*boc.Cell) { return func(c *boc.Cell) { must(c.WriteUint(v, 2)) } }

func u256(hexDigits string) func(*boc.Cell) {
	v, _ := new(big.Int).SetString(hexDigits, 16)
	return func(c *boc.Cell) { must(c.WriteBigUint(v, 256)) }
}

func bits512() func(*boc.Cell) {
	return func(c *boc.Cell) { must(c.WriteBytes(make([]byte, 64))) }
}

// coins writes VarUInteger 16: a 4-bit byte length, then the bytes.
func coins(v uint64) func(*boc.Cell) {
	return func(c *boc.Cell) {
		b := new(big.Int).SetUint64(v).Bytes()
		must(c.WriteUint(uint64(len(b)), 4))
		must(c.WriteBytes(b))
	}
}
