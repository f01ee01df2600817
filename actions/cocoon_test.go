package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/boc"

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
	// ClientProxyRequest{queryId ownerAddress ^ClientStateData payload:(Maybe ^Cell)}.
	proxyRequest := func(payload *boc.Cell, kids ...*stx) *stx {
		return call(coctProxy, 1, cellOf(op(coctProxyRequest), u64(7), addr(coctOwner), ref(cellOf()), maybeRef(payload)), kids...)
	}
	excess := func(to string) *stx { return call(to, 5_000_000, opQuery(coctExcesses, 7)) }
	request := func(body *boc.Cell, kids ...*stx) *stx { return call(coctClient, 2_000_000_000, body, kids...) }
	runCases(t, nil, []actionCase{
		{
			// ExtClientTopUp{queryId topUpAmount sendExcessesTo}: the client
			// sends everything to the proxy with client_proxy_top_up, and the
			// proxy returns the excess.
			name: "top up",
			root: ext(coctOwner, request(cellOf(op(coctTopUp), u64(7), coins(1_500_000_000), addr(coctOwner)),
				proxyRequest(cellOf(op(coctTopUpPayload), coins(1_500_000_000), addr(coctOwner)), excess(coctOwner)))),
			kind: "CocoonClientTopUp:ok", txs: 4,
			want: map[string]any{"sender": coctOwner, "client": coctClient, "proxy": coctProxy, "amount": "1500000000",
				"query_id": "7", "excesses_to": coctOwner},
		},
		{
			// OwnerClientRegister{queryId nonce sendExcessesTo}.
			name: "register",
			root: ext(coctOwner, request(cellOf(op(coctRegister), u64(7), u64(123456), addr(coctOwner)),
				proxyRequest(cellOf(op(coctRegisterPayload))), excess(coctOwner))),
			kind: "CocoonClientRegister:ok", txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "nonce": "123456",
				"query_id": "7", "excesses_to": coctOwner},
		},
		{
			// OwnerClientChangeSecretHash{queryId newSecretHash:uint256 sendExcessesTo}.
			name: "change secret hash",
			root: ext(coctOwner, request(cellOf(op(coctChangeSecret), u64(7), u256("0abc0000000000000000000000000000000000000000000000000000000000ff"), addr(coctOwner)),
				proxyRequest(nil), excess(coctOwner))),
			kind: "CocoonClientChangeSecretHash:ok", txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy,
				"new_secret_hash": "abc0000000000000000000000000000000000000000000000000000000000ff", "query_id": "7"},
		},
		{
			// OwnerClientIncreaseStake{queryId newStake sendExcessesTo}.
			name: "increase stake",
			root: ext(coctOwner, request(cellOf(op(coctIncreaseStake), u64(7), coins(3_000_000_000), addr(coctOwner)),
				proxyRequest(nil), excess(coctOwner))),
			kind: "CocoonClientIncreaseStake:ok", txs: 4,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "new_stake": "3000000000", "query_id": "7"},
		},
		{
			// A refund request while the balance is above the stake: the
			// client asks the proxy to pay back the difference at once
			// (client_proxy_refund_granted), and the proxy pays the owner and
			// returns the excess. Toncenter's matcher misses this variant.
			name: "request refund with payout",
			root: ext(coctOwner, request(cellOf(op(coctRequestRefund), u64(7), addr(coctOwner)),
				proxyRequest(cellOf(op(coctRefundGranted), coins(700_000_000), addr(coctOwner)),
					call(coctOwner, 700_000_000, opQuery(coctPayout, 7)),
					excess(coctOwner)))),
			kind: "CocoonClientRequestRefund:ok", txs: 5,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "proxy": coctProxy, "via_wallet": false,
				"refund_amount": "700000000", "forced": false, "query_id": "7"},
		},
		{
			// A request the client rejects (not from its owner, closed):
			// nothing is sent on; the request failed.
			name: "increase stake rejected",
			root: ext(coctOwner, request(cellOf(op(coctIncreaseStake), u64(7), coins(3_000_000_000), addr(coctOwner))).fails(0)),
			kind: "CocoonClientIncreaseStake:failed", txs: 2,
			want: map[string]any{"owner": coctOwner, "client": coctClient, "new_stake": "3000000000"},
		},
	})
}

// TestCocoonSigned checks proxy-signed requests whose facts sit in the
// signed payload (SignedMessage{op queryId sendExcessesTo signature
// ^payload}, payload {op queryId newTokens expectedMyAddress}), and
// toncenter's status rules: a payout is failed when the payout's receiving
// transaction aborted; a charge the client rejects bounces and is failed.
func TestCocoonSigned(t *testing.T) {
	const submitter = "0:3C02D2FAE2B263048DA2C03AAF0C2BEB208F6828C3547D4A86E19A98F1BFAABA"
	signed := func(code uint32, tokens uint64, expected string) *boc.Cell {
		payload := cellOf(op(code), u64(9), u64(tokens), addr(expected))
		return cellOf(op(code), u64(9), addr(submitter), raw(make([]byte, 64)), ref(payload))
	}
	t.Run("last worker payout, payout aborted", func(t *testing.T) {
		req := cellOf(op(coctWorkerRequest), u64(9), addr(coctOwner), u(2, 2), u64(5000),
			maybeRef(cellOf(op(coctWorkerPayPart), coins(400), coins(100), addr(submitter))))
		a := classify(t, ext(submitter,
			call(coctWorker, 500_000_000, signed(coctWorkerPayout, 5000, coctWorker),
				call(coctProxy, 490_000_000, req,
					call(coctOwner, 400, opQuery(coctPayout, 9)).fails(0),
					call(submitter, 480_000_000, opQuery(coctExcesses, 9))))), nil).only(t, "CocoonWorkerPayout:failed")
		a.wantTxs(t, 5)
		a.want(t, map[string]any{
			"sender": submitter, "worker": coctWorker, "proxy": coctProxy, "worker_owner": coctOwner, "amount": "400",
			"payout_type": "last", "query_id": "9", "new_tokens": "5000", "expected_address": coctWorker,
			"worker_state": 2, "worker_tokens": "5000", "worker_part": "400", "proxy_part": "100", "excesses_to": submitter})
	})
	t.Run("charge rejected", func(t *testing.T) {
		a := classify(t, ext(submitter,
			call(coctClient, 700_000_000, signed(coctCharge, 777, coctClient)).fails(0).
				bouncesBack(690_000_000, opQuery(0xffffffff, 0))), nil).only(t, "CocoonProxyCharge:failed")
		a.wantTxs(t, 3)
		a.want(t, map[string]any{
			"sender": submitter, "client": coctClient, "query_id": "9", "new_tokens_used": "777",
			"expected_address": coctClient, "excesses_to": submitter})
	})
}
