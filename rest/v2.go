package rest

import (
	"net/http"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/resolvers"
)

// v2Routes are the wallet calls as toncenter's REST routes have them:
// reads by GET with query parameters, the others by POST with a JSON body.
// (POST /api/v2/estimateFee has its own handler, EstimateFee.)
var v2Routes = map[string]string{
	"getAddressInformation":         http.MethodGet,
	"getExtendedAddressInformation": http.MethodGet,
	"getWalletInformation":          http.MethodGet,
	"getAddressBalance":             http.MethodGet,
	"getAddressState":               http.MethodGet,
	"getMasterchainInfo":            http.MethodGet,
	"runGetMethod":                  http.MethodPost,
	"sendBoc":                       http.MethodPost,
	"sendBocReturnHash":             http.MethodPost,
}

// v2Lists are the GET parameters of a method that may be repeated, each
// occurrence one element of a list (ton-http-api's List[str] queries).
var v2Lists = map[string][]string{"getLibraries": {"libraries"}}

// Routes returns the REST routes of this package beyond the ones the
// server registers itself: path -> handler.
func Routes(res *resolvers.Resolver) map[string]http.Handler {
	out := map[string]http.Handler{
		"/api/v3/estimateFee": EstimateFeeV3(res),
		"/api/v3/emulate":     Emulate(res),
		// toncenter's emulation service, in its shapes.
		"/api/emulate/v1/emulateTrace":      EmulateTraceV1(res),
		"/api/emulate/v1/emulateTonConnect": EmulateTonConnectV1(res),
		"/api/v3/metadata":                  MetadataRoute(res),
		// The token registry (package tokens).
		"/api/v3/jetton/masters":  JettonMastersRoute(res),
		"/api/v3/jetton/wallets":  JettonWalletsRoute(res),
		"/api/v3/nft/collections": NftCollectionsRoute(res),
		"/api/v3/nft/items":       NftItemsRoute(res),
		// Sale and vesting contracts, DNS items (package contracts).
		"/api/v3/nft/sales":   NftSalesRoute(res),
		"/api/v3/vesting":     VestingRoute(res),
		"/api/v3/dns/records": DNSRecordsRoute(res),
		// Multisig v2 wallets (package contracts); their orders are not
		// served (docs/API-NOTES.md).
		"/api/v3/multisig/wallets": MultisigWalletsRoute(res),
		"/api/v3/multisig/orders":  MultisigOrdersRoute(res),
		// Token moves: the stored transfer and burn actions.
		"/api/v3/jetton/transfers": JettonTransfersRoute(res),
		"/api/v3/jetton/burns":     JettonBurnsRoute(res),
		"/api/v3/nft/transfers":    NftTransfersRoute(res),

		"/api/v3/transactions":                   Transactions(res),
		"/api/v3/transactionsByMessage":          TransactionsByMessage(res),
		"/api/v3/transactionsByMasterchainBlock": TransactionsByMasterchainBlock(res),
		"/api/v3/adjacentTransactions":           AdjacentTransactions(res),
		"/api/v3/messages":                       Messages(res),
		"/api/v3/addressBook":                    AddressBookRoute(res),
		"/api/v3/traces":                         Traces(res, false),
		"/api/v3/events":                         Traces(res, true),
		"/api/v3/pendingTraces":                  PendingTraces(res),
		"/api/v3/pendingTransactions":            PendingTransactions(res),
		"/api/v3/addressInformation":             AddressInformation(res),
		"/api/v3/account":                        AddressInformation(res),
		"/api/v3/walletInformation":              WalletInformation(res),
		"/api/v3/wallet":                         WalletInformation(res),
		"/api/v3/accountStates":                  AccountStates(res),
		"/api/v3/walletStates":                   WalletStates(res),
		"/api/v3/runGetMethod":                   RunGetMethodV3(res),
		"/api/v3/message":                        SendMessageV3(res),
		"/api/v3/decode":                         Decode(),
		"/api/v3/balanceChanges":                 BalanceChanges(res),
		"/api/v3/topAccountsByBalance":           TopAccountsByBalance(res),
		// Token analytics (package analytics).
		"/api/v3/analytics/candles": Candles(res),
		"/api/v3/analytics/volumes": Volumes(res),
		"/v2/rates":                 Rates(res),
		"/v2/rates/chart":           RatesChart(res),
		// The block store (package history).
		"/api/v3/masterchainInfo":            MasterchainInfo(res),
		"/api/v3/blocks":                     Blocks(res),
		"/api/v3/masterchainBlockShards":     MasterchainBlockShards(res),
		"/api/v3/masterchainBlockShardState": MasterchainBlockShardState(res),
	}
	for name, verb := range v2Routes {
		out["/api/v2/"+name] = v2Call(res, name, verb)
	}
	for path, h := range WebhookRoutes(res) {
		out[path] = h
	}
	return out
}

// v2Call serves /api/v2/<name> in the v2 envelope.
func v2Call(res *resolvers.Resolver, name, verb string) http.HandlerFunc {
	m := rpcMethods[name]
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != verb && !(verb == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", verb)
			WriteError(w, r, V2, apperr.New(apperr.MethodNotAllowed, "method %s not allowed; use %s", r.Method, verb))
			return
		}
		var p params
		var err error
		if verb == http.MethodGet {
			p, err = queryParams(r.URL.Query(), v2Lists[name]...)
		} else {
			var raw []byte
			if raw, err = readBody(r); err == nil {
				p, err = objectParams(raw)
			}
		}
		if err != nil {
			WriteError(w, r, V2, err)
			return
		}
		result, err := m(r, res, p)
		if err != nil {
			WriteError(w, r, V2, err)
			return
		}
		writeBounded(w, r, V2, v2Answer{OK: true, Result: result})
	}
}

// v2Answer is the v2 success envelope.
type v2Answer struct {
	OK     bool `json:"ok"`
	Result any  `json:"result"`
}
