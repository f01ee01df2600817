package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/uptrace/bun"

	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/notify"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
	"github.com/tonql/tonql/store"
)

// The members of toncenter's streaming v2 AccountStateNotification and of
// its AccountState (index models), as its JSON tags name them (data_boc
// and code_boc are omitted when empty, and never sent by the stream).
var (
	tcAccountStateNotificationFields = []string{"account", "finality", "state", "type"}
	tcAccountStateFields             = []string{"account_status", "balance", "code_hash", "data_hash", "extra_currencies", "frozen_hash", "hash"}
)

// streamedState is an account_state_change event as our SSE route and
// webhooks send it.
type streamedState struct {
	Account         string `json:"account"`
	TransactionHash string `json:"transaction_hash"`
	TransactionLt   string `json:"transaction_lt"`
	State           struct {
		Hash            *string           `json:"hash"`
		Balance         *string           `json:"balance"`
		ExtraCurrencies map[string]string `json:"extra_currencies"`
		AccountStatus   *string           `json:"account_status"`
		CodeHash        *string           `json:"code_hash"`
		DataHash        *string           `json:"data_hash"`
	} `json:"state"`
	AddressBook map[string]any `json:"address_book"`
}

// storedTx is what the test knows of a transaction from the tables.
type storedTx struct {
	Hash      string `bun:"hash"`
	Account   string `bun:"account"`
	Lt        int64  `bun:"lt"`
	EndStatus string `bun:"end_status"`
	BOC       []byte `bun:"boc"`
	Seq       int64  `bun:"seq"`
	// The account's stored state, when it is the one after this
	// transaction.
	Balance *int64 `bun:"balance"`
	Shard   []byte `bun:"shard_account_boc"`
}

// Accounts watched among the fee-replay block (raw transactions, states
// after the block) and two toncenter traces (no BOCs, no states), and
// 1,000 addresses that never occur: our SSE route (account states alone,
// and mixed with transactions, cut after a third and resumed by cursor),
// toncenter's streaming v2 SSE and GraphQL's Subscription.events each get
// one account_state_change per stored transaction of a watched account,
// at the place after the transaction's, none of another; the state's
// status is the transaction's end status, its hash the new hash of the
// raw transaction's state update (null without the BOC) and, where the
// stored state is the one after the transaction, equal to that state's
// hash, with its balance; elsewhere balance, code and data hashes are
// null (live, all of them: the import stores the states before the block;
// a replay after the states after it were stored has each account's last
// transaction's). toncenter's notification has its model's fields.
func TestStreamAccountStates(t *testing.T) {
	dir := testenv.FixturesDir(t)
	traces, _ := filepath.Glob(filepath.Join(dir, "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, traces)
	files := append([]string{testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json")}, traces[:2]...)
	scratch := storetest.Open(t, testenv.Databases(t)[0].URL)
	importFiles(t, scratch, files)
	var real, noBOC []string
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM transactions WHERE boc IS NOT NULL GROUP BY account ORDER BY count(*) DESC, account LIMIT 12`).Scan(t.Context(), &real))
	require.NoError(t, scratch.DB().NewRaw(`SELECT account FROM transactions WHERE boc IS NULL GROUP BY account ORDER BY count(*) DESC, account LIMIT 4`).Scan(t.Context(), &noBOC))
	require.Len(t, noBOC, 4)
	real = append(real, noBOC...)
	watched := append([]string(nil), real...)
	for i := 0; i < 1000; i++ {
		watched = append(watched, fmt.Sprintf("0:%064X", uint64(0xbeef0000+i)))
	}

	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			res := &resolvers.Resolver{Store: st}
			hub := startHub(t, st, res, notify.Options{Queue: 100_000})
			srv := streamServer(t, server.Options{Resolver: res})

			own, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched, "types": []string{"account_state_change"}})
			require.Nil(t, refused)
			cut, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched, "types": []string{"account_state_change", "transactions"}})
			require.Nil(t, refused)
			tc := toncenterSSE(t, srv.URL, map[string]any{"addresses": watched, "types": []string{"account_state_change"},
				"include_cursor": true})
			ws := dialGraphQL(t, srv.URL, "")
			gql := ws.subscribe(t, "s", `subscription($w: StreamWatch) { events(watch: $w) { cursor type finality
				account_state { account transaction_hash transaction_lt state { hash balance extra_currencies account_status code_hash data_hash frozen_hash } } } }`,
				map[string]any{"w": map[string]any{"addresses": watched, "types": []string{"account_state_change"}}})
			sock := dialToncenter(t, srv.URL)
			sockMsgs := subscribeToncenter(t, sock, map[string]any{"id": "s", "types": []string{"account_state_change"}, "addresses": real})
			require.Eventually(t, func() bool { return hub.Stats().Streams == 5 }, 20*time.Second, 5*time.Millisecond)

			importFiles(t, st, files)

			var rows []storedTx
			byHash := map[string]storedTx{}
			// load reads the watched accounts' transactions, each with the
			// stored state when it is the one after it, and counts those
			// with one, those without, and those without a BOC.
			load := func() (known, unknown, hashless int) {
				rows = nil
				require.NoError(t, st.DB().NewRaw(`SELECT t.hash, t.account, t.lt, t.end_status, t.boc, t.seq, a.balance, a.shard_account_boc
					FROM transactions t LEFT JOIN accounts a ON a.address = t.account AND a.last_tx_lt = t.lt
					WHERE t.account IN (?)`, bun.In(real)).Scan(t.Context(), &rows))
				byHash = map[string]storedTx{}
				for _, r := range rows {
					byHash[r.Hash] = r
					switch {
					case r.Balance != nil:
						known++
					case r.BOC == nil:
						hashless++
					default:
						unknown++
					}
				}
				return known, unknown, hashless
			}
			// The import stores the states before the block: none is the
			// one after a transaction yet.
			known, unknown, hashless := load()
			require.Zero(t, known)
			require.Positive(t, unknown)
			require.Positive(t, hashless, "some are stored without BOC")
			wantHashes := make([]string, 0, len(rows))
			for h := range byHash {
				wantHashes = append(wantHashes, h)
			}

			// checkState checks a state against the tables and the raw
			// transaction, decoded here with tongo.
			checkState := func(txHash string, status, hash, balance, codeHash *string) {
				t.Helper()
				r, ok := byHash[txHash]
				require.True(t, ok, "a state after %s, not a transaction of a watched account", txHash)
				require.NotNil(t, status)
				require.Equal(t, r.EndStatus, *status)
				if r.BOC == nil {
					require.Nil(t, hash, "no BOC, no state update")
				} else {
					cells, err := boc.DeserializeBoc(r.BOC)
					require.NoError(t, err)
					var tx tlb.Transaction
					require.NoError(t, tlb.Unmarshal(cells[0], &tx))
					require.NotNil(t, hash)
					require.Equal(t, base64.StdEncoding.EncodeToString(tx.StateUpdate.NewHash[:]), *hash)
				}
				if r.Balance == nil {
					require.Nil(t, balance, "the stored state is not the one after %s", txHash)
					require.Nil(t, codeHash)
					return
				}
				require.NotNil(t, balance)
				require.Equal(t, strconv.FormatInt(*r.Balance, 10), *balance)
				// The replayed state is the one the transaction's update names.
				if hash != nil && len(r.Shard) > 0 {
					cells, err := boc.DeserializeBoc(r.Shard)
					require.NoError(t, err)
					h, err := cells[0].Refs()[0].Hash()
					require.NoError(t, err)
					require.Equal(t, base64.StdEncoding.EncodeToString(h), *hash)
				}
			}
			once := func(what string, got map[string]int) { t.Helper(); requireEachOnce(t, what, got, wantHashes) }

			// Ours: each state once, at the place after its transaction's.
			var lastID string
			readOwn := func(s *sseStream, n int, states, txs map[string]int, last *uint64) {
				for i := 0; i < n; i++ {
					ev, ok := s.next(t, 30*time.Second)
					if !ok {
						t.Logf("%d of %d events came", i, n)
						return
					}
					seq := cursorSeq(t, ev.ID)
					require.Greater(t, seq, *last, "cursor order")
					*last, lastID = seq, ev.ID
					switch ev.Event {
					case "account_state_change":
						var p streamedState
						require.NoError(t, json.Unmarshal([]byte(ev.Data), &p), ev.Data)
						r := byHash[p.TransactionHash]
						require.Equal(t, r.Account, p.Account)
						require.Equal(t, strconv.FormatInt(r.Lt, 10), p.TransactionLt)
						require.Equal(t, uint64(r.Seq+1), seq, "the place after its transaction's")
						require.Contains(t, p.AddressBook, p.Account)
						checkState(p.TransactionHash, p.State.AccountStatus, p.State.Hash, p.State.Balance, p.State.CodeHash)
						states[p.TransactionHash]++
					case "transactions":
						var p struct {
							Transactions []struct{ Hash string } `json:"transactions"`
						}
						require.NoError(t, json.Unmarshal([]byte(ev.Data), &p))
						require.Equal(t, uint64(byHash[p.Transactions[0].Hash].Seq), seq)
						txs[p.Transactions[0].Hash]++
					default:
						t.Fatalf("event %q", ev.Event)
					}
				}
			}
			states, txs, last := map[string]int{}, map[string]int{}, uint64(0)
			readOwn(own, len(rows), states, txs, &last)
			once("state", states)
			require.Empty(t, txs)

			total := 2 * len(rows)
			states, txs, last = map[string]int{}, map[string]int{}, 0
			readOwn(cut, total/3, states, txs, &last)
			cut.Close()
			resumed, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"transactions", "account_state_change"}, "after": lastID})
			require.Nil(t, refused)
			readOwn(resumed, total-total/3, states, txs, &last)
			once("resumed state", states)
			once("resumed transaction", txs)

			// toncenter's: its fields, each state once.
			tcStates := map[string]int{}
			var docs []string
			for i := 0; i < len(rows); i++ {
				n := nextTCNotification(t, tc, "account_state_change", tcAccountStateNotificationFields)
				var state map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(n["state"], &state))
				require.Equal(t, tcAccountStateFields, sortedKeys(state))
				// The cursor names the transaction: the place before it.
				seq := cursorSeq(t, mustString(t, n["cursor"]))
				var hash string
				for h, r := range byHash {
					if uint64(r.Seq+1) == seq {
						hash = h
					}
				}
				require.NotEmpty(t, hash, "no transaction at %d", seq-1)
				var account string
				require.NoError(t, json.Unmarshal(n["account"], &account))
				require.Equal(t, byHash[hash].Account, account)
				var s struct {
					Hash, Balance, AccountStatus, CodeHash *string
				}
				require.NoError(t, json.Unmarshal(n["state"], &struct {
					Hash          **string `json:"hash"`
					Balance       **string `json:"balance"`
					AccountStatus **string `json:"account_status"`
					CodeHash      **string `json:"code_hash"`
				}{&s.Hash, &s.Balance, &s.AccountStatus, &s.CodeHash}))
				checkState(hash, s.AccountStatus, s.Hash, s.Balance, s.CodeHash)
				tcStates[hash]++
				if s.Hash != nil {
					delete(n, "cursor") // ours, not the model's
					b, _ := json.Marshal(n)
					docs = append(docs, string(b))
				}
			}
			once("toncenter state", tcStates)
			// Its websocket: the same notification, each state once (by
			// the state's hash, and the account's end status; the cursor
			// was not asked for).
			sockStates := 0
			for i := 0; i < len(rows); i++ {
				m := recvSocket(t, sockMsgs)
				require.Equal(t, tcAccountStateNotificationFields, sortedKeys(m), m)
				require.Equal(t, "account_state_change", m["type"])
				require.Contains(t, real, m["account"])
				require.Equal(t, tcAccountStateFields, sortedKeys(m["state"].(map[string]any)))
				sockStates++
			}
			require.Equal(t, len(rows), sockStates)
			requireNoMore(t, sockMsgs, "states")
			checkTCShape(t, "AccountStateNotification", docs)

			// GraphQL: each state once, the same values.
			gqlStates := map[string]int{}
			for i := 0; i < len(rows); i++ {
				select {
				case m := <-gql:
					require.Equal(t, "next", m.Type, string(m.Payload))
					var ev struct {
						Data struct {
							Events struct {
								Cursor, Type, Finality string
								AccountState           struct {
									Account         string
									TransactionHash string `json:"transaction_hash"`
									TransactionLt   uint64 `json:"transaction_lt"`
									State           struct {
										Hash, Balance *string
										Status        *string         `json:"account_status"`
										CodeHash      *string         `json:"code_hash"`
										Extra         json.RawMessage `json:"extra_currencies"`
									}
								} `json:"account_state"`
							}
						}
					}
					require.NoError(t, json.Unmarshal(m.Payload, &ev))
					e := ev.Data.Events
					require.Equal(t, "account_state_change", e.Type)
					require.Equal(t, "finalized", e.Finality)
					r := byHash[e.AccountState.TransactionHash]
					require.Equal(t, uint64(r.Seq+1), cursorSeq(t, e.Cursor))
					require.Equal(t, uint64(r.Lt), e.AccountState.TransactionLt)
					require.Equal(t, r.Account, e.AccountState.Account)
					checkState(e.AccountState.TransactionHash, e.AccountState.State.Status, e.AccountState.State.Hash, e.AccountState.State.Balance, e.AccountState.State.CodeHash)
					if r.Balance == nil {
						require.JSONEq(t, "null", string(e.AccountState.State.Extra))
					} else {
						require.Equal(t, byte('{'), e.AccountState.State.Extra[0])
					}
					gqlStates[e.AccountState.TransactionHash]++
				case <-time.After(60 * time.Second):
					t.Fatal("no GraphQL event")
				}
			}
			once("GraphQL state", gqlStates)

			// The states after the block (the fee replay's, replayed by
			// the parser) stored later: a replay from the start tells each
			// account's last transaction with its balance, the earlier
			// ones still without.
			parsed, err := ingest.ParseFile(files[0])
			require.NoError(t, err)
			require.NotEmpty(t, parsed.After)
			require.NoError(t, st.SaveBatch(t.Context(), &store.Batch{Accounts: parsed.After}))
			known, unknown, _ = load()
			require.Positive(t, known, "some transactions are their account's last one, with its state stored")
			require.Positive(t, unknown, "some are earlier ones")
			replay, refused := postSSE(t, srv.URL, "/api/v3/actions/stream", map[string]any{"addresses": watched,
				"types": []string{"account_state_change"}, "after": resolvers.EncodeStreamCursor(0)})
			require.Nil(t, refused)
			states, txs, last = map[string]int{}, map[string]int{}, 0
			readOwn(replay, len(rows), states, txs, &last)
			once("replayed state", states)
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mustString(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	require.NoError(t, json.Unmarshal(raw, &s), string(raw))
	return s
}
