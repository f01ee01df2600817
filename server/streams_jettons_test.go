package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
	"github.com/tonql/tonql/tokens"
)

// The members of toncenter's streaming v2 JettonsNotification (address
// book and metadata asked for) and of its JettonWallet (index models), as
// their JSON tags name them (mintless_info is omitted when empty).
var (
	tcJettonsNotificationFields = []string{"address_book", "finality", "jetton", "metadata", "type"}
	tcJettonWalletFields        = []string{"address", "balance", "code_hash", "data_hash", "jetton", "last_transaction_lt", "owner"}
)

// streamedJettons is a jettons_change event as our SSE route and webhooks
// send it.
type streamedJettons struct {
	TransactionHash string `json:"transaction_hash"`
	TransactionLt   string `json:"transaction_lt"`
	Jetton          struct {
		Address           string  `json:"address"`
		Balance           *string `json:"balance"`
		Owner             string  `json:"owner"`
		Jetton            string  `json:"jetton"`
		LastTransactionLt string  `json:"last_transaction_lt"`
		CodeHash          *string `json:"code_hash"`
		DataHash          *string `json:"data_hash"`
	} `json:"jetton"`
	AddressBook map[string]any `json:"address_book"`
	Metadata    map[string]any `json:"metadata"`
}

// noMore fails when s tells another event within 300 ms.
func noMore(t *testing.T, s *sseStream) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			t.Fatalf("more events than expected: %s %s", ev.Event, ev.Data)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// walletTx is a transaction of a jetton wallet, as the tables hold it.
type walletTx struct {
	Hash    string `bun:"hash"`
	Account string `bun:"account"`
	Lt      int64  `bun:"lt"`
	Seq     int64  `bun:"seq"`
}

// The fee-replay block imported with the token registry on into an empty
// store, on both databases, while streams are open: the registry learns
// the block's jetton wallets from the same import, after the batch's
// commit, and each state it stores is told at once, with the balance the
// get method read. Half of the jetton wallets with transactions are
// watched by their address, the owners of others by theirs, the rest not
// at all, among 1,000 addresses that never occur: our SSE route (jettons
// alone; and mixed with transactions and states, cut after a third and
// resumed by cursor), toncenter's streaming v2 SSE and websocket and
// GraphQL's Subscription.events each get one jettons_change per watched
// wallet or wallet of a watched owner (the state after its last
// transaction of the block), none of another, after that transaction's
// place; balance and hashes equal the registry's and
// /api/v3/jetton/wallets'. A replay from the start tells exactly what the
// live stream told, and one watching the owners only finds their wallets.
func TestStreamJettons(t *testing.T) {
	files := []string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}
	scratch := importedWithTokens(t, testenv.Databases(t)[0], files)
	ctx := t.Context()
	registry, err := scratch.JettonWallets(ctx, store.JettonWalletFilter{TokenPage: store.TokenPage{Limit: 100_000}})
	require.NoError(t, err)
	walletOf := map[string]chain.JettonWallet{}
	var walletAddrs []string
	for _, w := range registry {
		walletOf[w.Address] = w
		walletAddrs = append(walletAddrs, w.Address)
	}
	// The wallets with transactions in the block, most first.
	var active []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM transactions WHERE account IN (?) GROUP BY account ORDER BY count(*) DESC, account`,
		bun.In(walletAddrs)).Scan(ctx, &active))
	require.GreaterOrEqual(t, len(active), 4, "jetton wallets with transactions in the block")
	// Watched: every other wallet by its address, the owners of others
	// (not the wallets), and one in four neither.
	var watched, byOwner, unwatched []string
	for i, w := range active {
		switch i % 4 {
		case 0, 2:
			watched = append(watched, w)
		case 1:
			byOwner = append(byOwner, walletOf[w].Owner)
		default:
			unwatched = append(unwatched, w)
		}
	}
	watched = append(watched, byOwner...)
	for i := 0; i < 1000; i++ {
		watched = append(watched, fmt.Sprintf("0:%064X", uint64(0xbeef0000+i)))
	}
	isWatched := map[string]bool{}
	for _, a := range watched {
		isWatched[a] = true
	}
	var want []string // the wallets whose changes are told
	for _, w := range registry {
		if isWatched[w.Address] || isWatched[w.Owner] {
			want = append(want, w.Address)
		}
	}
	for _, w := range unwatched {
		require.NotContains(t, want, w, "a wallet of a watched owner is not an unwatched one")
	}
	require.NotEmpty(t, unwatched)
	t.Logf("%d jetton wallets, %d with transactions; %d watched by address or owner (%d owners)", len(registry), len(active), len(want), len(byOwner))

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL) // empty: the registry learns the wallets from the import below
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000})
			srv := streamServer(t, server.Options{Resolver: res})

			own, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched, "types": []string{"jettons_change"}})
			require.Nil(t, refused)
			cut, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"jettons_change", "transactions", "account_state_change"}})
			require.Nil(t, refused)
			tc := toncenterSSE(t, srv.URL, map[string]any{"addresses": watched, "types": []string{"jettons_change"},
				"include_cursor": true, "include_address_book": true, "include_metadata": true})
			ws := dialGraphQL(t, srv.URL, "")
			gql := ws.subscribe(t, "s", `subscription($w: StreamWatch) { events(watch: $w) { cursor type finality metadata address_book
				jettons_change { address owner jetton balance last_transaction_lt code_hash data_hash transaction_hash } } }`,
				map[string]any{"w": map[string]any{"addresses": watched, "types": []string{"jettons_change"}}})
			sock := dialToncenter(t, srv.URL)
			sockMsgs := subscribeToncenter(t, sock, map[string]any{"id": "s", "types": []string{"jettons_change"},
				"addresses": watched[:len(watched)-1000], "include_address_book": true, "include_metadata": true})
			require.Eventually(t, func() bool { return hub.Stats().Streams == 5 }, 20*time.Second, 5*time.Millisecond)

			im := ingest.New(st)
			im.Tokens = tokens.ForStore(st, nil).Hook
			require.NoError(t, im.ImportFiles(t.Context(), files, func(path string, _ ingest.Stats, err error) { require.NoError(t, err, path) }))

			// The transactions of the watched wallets, by account and lt.
			var rows []walletTx
			require.NoError(t, st.DB().NewRaw(`SELECT hash, account, lt, seq FROM transactions WHERE account IN (?)`, bun.In(want)).Scan(t.Context(), &rows))
			txAt := map[string]walletTx{}
			for _, r := range rows {
				txAt[r.Account+"@"+strconv.FormatInt(r.Lt, 10)] = r
			}
			// The registry after the import, and /api/v3/jetton/wallets.
			now, err := st.JettonWallets(t.Context(), store.JettonWalletFilter{Addresses: want, TokenPage: store.TokenPage{Limit: 1000}})
			require.NoError(t, err)
			require.Len(t, now, len(want), "the registry learnt every wallet from the import")
			rowOf := map[string]chain.JettonWallet{}
			for _, w := range now {
				rowOf[w.Address] = w
			}
			restBalance := map[string]any{}
			resp, err := http.Get(srv.URL + "/api/v3/jetton/wallets?limit=1000&address=" + url.QueryEscape(strings.Join(want, ",")))
			require.NoError(t, err)
			var page struct {
				Wallets []map[string]any `json:"jetton_wallets"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
			resp.Body.Close()
			require.Len(t, page.Wallets, len(want))
			for _, w := range page.Wallets {
				restBalance[w["address"].(string)] = w["balance"]
			}
			t.Logf("%d transactions of the %d watched wallets", len(rows), len(want))
			wantKeys := make([]string, 0, len(want)) // a change is named by wallet@lt
			for _, a := range want {
				wantKeys = append(wantKeys, a+"@"+strconv.FormatUint(rowOf[a].LastTxLt, 10))
			}

			// check checks one told wallet against the registry, REST and
			// the transaction it follows (txHash "" where the protocol
			// names none), and returns the change's name, wallet@lt.
			check := func(txHash, addr, owner, master, lastLt string, balance, codeHash, dataHash *string) string {
				t.Helper()
				w, ok := rowOf[addr]
				require.True(t, ok, "a change of %s, not a watched wallet", addr)
				require.Equal(t, w.Owner, owner)
				require.Equal(t, w.Jetton, master)
				require.Equal(t, strconv.FormatUint(w.LastTxLt, 10), lastLt, "the state after the wallet's last transaction")
				if tx, ok := txAt[addr+"@"+lastLt]; ok && txHash != "" {
					require.Equal(t, tx.Hash, txHash, "the transaction at last_transaction_lt")
				} else if txHash != "" {
					require.Fail(t, "no stored transaction of the wallet at "+lastLt)
				}
				require.NotNil(t, balance, "the balance the registry read")
				require.Equal(t, w.Balance, *balance)
				require.Equal(t, restBalance[addr], *balance, "/api/v3/jetton/wallets")
				require.Equal(t, w.CodeHash.Base64(), *codeHash)
				require.Equal(t, w.DataHash.Base64(), *dataHash)
				return addr + "@" + lastLt
			}
			once := func(what string, got map[string]int) { t.Helper(); requireEachOnce(t, what, got, wantKeys) }

			// Ours: each change once, after its transaction's place, with
			// the book of wallet, owner and master.
			var lastID string
			var told []string // our stream's events, cursor and data
			readOwn := func(s *sseStream, n int, changes, other map[string]int, last *uint64) {
				for i := 0; i < n; i++ {
					ev, ok := s.next(t, 30*time.Second)
					if !ok {
						t.Logf("%d of %d events came", i, n)
						return
					}
					seq := cursorSeq(t, ev.ID)
					require.Greater(t, seq, *last, "cursor order")
					*last, lastID = seq, ev.ID
					if ev.Event != "jettons_change" {
						other[ev.Event+" "+ev.ID]++
						continue
					}
					var p streamedJettons
					require.NoError(t, json.Unmarshal([]byte(ev.Data), &p), ev.Data)
					j := p.Jetton
					require.Equal(t, j.LastTransactionLt, p.TransactionLt)
					key := check(p.TransactionHash, j.Address, j.Owner, j.Jetton, j.LastTransactionLt, j.Balance, j.CodeHash, j.DataHash)
					require.Greater(t, seq, uint64(txAt[key].Seq), "told after its transaction")
					for _, a := range []string{j.Address, j.Owner, j.Jetton} {
						require.Contains(t, p.AddressBook, a)
					}
					require.NotContains(t, p.Metadata, j.Address, "metadata of the owner and master only")
					changes[key]++
					p.Metadata = nil // what the store knows of the tokens when read: the worker adds to it
					b, err := json.Marshal(p)
					require.NoError(t, err)
					told = append(told, ev.ID+" "+string(b))
				}
			}
			changes, other, last := map[string]int{}, map[string]int{}, uint64(0)
			readOwn(own, len(want), changes, other, &last)
			once("change", changes)
			require.Empty(t, other)
			noMore(t, own)
			live := told

			// Mixed with the watched accounts' transactions and states: as
			// many of those as their rows (a watched owner's wallets bring
			// only their jettons_change).
			var direct int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM transactions WHERE account IN (?)`, bun.In(watched)).Scan(t.Context(), &direct))
			total := len(want) + 2*direct
			changes, other, last = map[string]int{}, map[string]int{}, 0
			readOwn(cut, total/3, changes, other, &last)
			cut.Close()
			resumed, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"transactions", "account_state_change", "jettons_change"}, "after": lastID})
			require.Nil(t, refused)
			readOwn(resumed, total-total/3, changes, other, &last)
			once("resumed change", changes)
			require.Len(t, other, 2*direct)
			noMore(t, resumed)

			// A replay from the start tells what the live stream told (the
			// metadata aside).
			told = nil
			replayAll, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"jettons_change"}, "after": resolvers.EncodeStreamCursor(0)})
			require.Nil(t, refused)
			changes, other, last = map[string]int{}, map[string]int{}, 0
			readOwn(replayAll, len(want), changes, other, &last)
			require.Equal(t, live, told, "replay == live")
			noMore(t, replayAll)

			// toncenter's SSE: its fields, each change once.
			tcChanges := map[string]int{}
			var docs []string
			for i := 0; i < len(want); i++ {
				n := nextTCNotification(t, tc, "jettons_change", tcJettonsNotificationFields)
				var j map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(n["jetton"], &j))
				require.Equal(t, tcJettonWalletFields, sortedKeys(j))
				var w struct {
					Address, Owner, Jetton string
					LastLt                 string  `json:"last_transaction_lt"`
					Balance                *string `json:"balance"`
					CodeHash               *string `json:"code_hash"`
					DataHash               *string `json:"data_hash"`
				}
				require.NoError(t, json.Unmarshal(n["jetton"], &w))
				key := check("", w.Address, w.Owner, w.Jetton, w.LastLt, w.Balance, w.CodeHash, w.DataHash)
				require.Greater(t, cursorSeq(t, mustString(t, n["cursor"])), uint64(txAt[key].Seq))
				var book map[string]any
				require.NoError(t, json.Unmarshal(n["address_book"], &book))
				require.Len(t, book, len(map[string]bool{w.Address: true, w.Owner: true, w.Jetton: true}))
				tcChanges[key]++
				delete(n, "cursor") // ours, not the model's
				b, _ := json.Marshal(n)
				docs = append(docs, string(b))
			}
			once("toncenter change", tcChanges)
			checkTCShape(t, "JettonsNotification", docs)
			// Its websocket: the same notification, each once.
			sockChanges := map[string]int{}
			for i := 0; i < len(want); i++ {
				m := recvSocket(t, sockMsgs)
				require.Equal(t, tcJettonsNotificationFields, sortedKeys(m), m)
				require.Equal(t, "jettons_change", m["type"])
				j := m["jetton"].(map[string]any)
				require.Equal(t, tcJettonWalletFields, sortedKeys(j))
				sockChanges[j["address"].(string)+"@"+j["last_transaction_lt"].(string)]++
			}
			once("websocket change", sockChanges)
			requireNoMore(t, sockMsgs, "changes")

			// GraphQL: each change once, the same values.
			gqlChanges := map[string]int{}
			for i := 0; i < len(want); i++ {
				select {
				case m := <-gql:
					require.Equal(t, "next", m.Type, string(m.Payload))
					var ev struct {
						Data struct {
							Events struct {
								Cursor, Type, Finality string
								AddressBook            map[string]any `json:"address_book"`
								Change                 struct {
									Address, Owner, Jetton string
									Balance                *string
									LastLt                 uint64  `json:"last_transaction_lt"`
									CodeHash               *string `json:"code_hash"`
									DataHash               *string `json:"data_hash"`
									TxHash                 string  `json:"transaction_hash"`
								} `json:"jettons_change"`
							}
						}
					}
					require.NoError(t, json.Unmarshal(m.Payload, &ev))
					e := ev.Data.Events
					require.Equal(t, "jettons_change", e.Type)
					require.Equal(t, "finalized", e.Finality)
					c := e.Change
					key := check(c.TxHash, c.Address, c.Owner, c.Jetton, strconv.FormatUint(c.LastLt, 10), c.Balance, c.CodeHash, c.DataHash)
					require.Greater(t, cursorSeq(t, e.Cursor), uint64(txAt[key].Seq))
					require.Contains(t, e.AddressBook, c.Owner)
					gqlChanges[key]++
				case <-time.After(60 * time.Second):
					t.Fatal("no GraphQL event")
				}
			}
			once("GraphQL change", gqlChanges)

			// A replay from the start watching only the owners: their
			// wallets' changes (the change names its owner), and their own
			// transactions, not their wallets'.
			var ownersWant []string
			for _, k := range wantKeys {
				if w := rowOf[strings.Split(k, "@")[0]]; !isWatched[w.Address] {
					ownersWant = append(ownersWant, k)
				}
			}
			require.NotEmpty(t, ownersWant)
			replay, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": byOwner,
				"types": []string{"jettons_change", "transactions"}, "after": resolvers.EncodeStreamCursor(0)})
			require.Nil(t, refused)
			changes, other, last = map[string]int{}, map[string]int{}, 0
			var ownTxs int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM transactions WHERE account IN (?)`, bun.In(byOwner)).Scan(t.Context(), &ownTxs))
			readOwn(replay, len(ownersWant)+ownTxs, changes, other, &last)
			wantKeys = ownersWant
			once("replayed change", changes)
			require.Len(t, other, ownTxs, "the owners' own transactions, not their wallets'")
			noMore(t, replay)

			// Importing the block again reads the same states: nothing new
			// is told.
			require.NoError(t, im.ImportFiles(t.Context(), files, func(path string, _ ingest.Stats, err error) { require.NoError(t, err, path) }))
			var logged int
			require.NoError(t, st.DB().NewRaw(`SELECT count(*) FROM jetton_changes`).Scan(t.Context(), &logged))
			require.Equal(t, len(registry), logged, "one change per wallet state, none again for the same state")
		})
	}
}
