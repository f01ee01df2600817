package server_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/server"
)

type fixtureTrace struct {
	Trace struct {
		TraceID string `json:"trace_id"`
	} `json:"trace"`
	Transactions []struct {
		Account   string       `json:"account"`
		Hash      string       `json:"hash"`
		TotalFees int64        `json:"total_fees"`
		Messages  []fixtureMsg `json:"messages"`
	} `json:"transactions"`
	Interfaces map[string]map[string]struct {
		Jetton string `json:"jetton"`
	} `json:"interfaces"`
}

type balanceAnswer struct {
	Changes map[string]int64             `json:"changes"`
	Fees    map[string]int64             `json:"fees"`
	Jettons map[string]map[string]string `json:"jettons"`
}

// expectedChanges counts a trace file's balance changes from its JSON (the
// indexer's own fields; jetton transfer bodies read with tongo), as
// toncenter defines them: each transaction's account pays its total fees,
// a sender inside the trace the forward fee of what it sent, values move
// from sender to receiver, external messages out cost their forward fee,
// and a transfer request to a wallet the indexer knows moves its amount
// from the requester to the owner it names.
func expectedChanges(t *testing.T, f *fixtureTrace) balanceAnswer {
	return expectedChangesWithin(t, f, f)
}

// expectedChangesWithin counts the transactions of sub, a part of the
// trace f (whose messages say which were sent inside the trace).
func expectedChangesWithin(t *testing.T, f, sub *fixtureTrace) balanceAnswer {
	out := balanceAnswer{Changes: map[string]int64{}, Fees: map[string]int64{}, Jettons: map[string]map[string]string{}}
	sentFee := map[string]int64{}
	for _, tx := range f.Transactions {
		for _, m := range tx.Messages {
			if m.Direction == "out" && m.FwdFee != nil {
				sentFee[m.MsgHash] = *m.FwdFee
			}
		}
	}
	jettons := map[string]map[string]*big.Int{}
	addJetton := func(owner, master string, v *big.Int) {
		if jettons[owner] == nil {
			jettons[owner] = map[string]*big.Int{}
		}
		if jettons[owner][master] == nil {
			jettons[owner][master] = new(big.Int)
		}
		jettons[owner][master].Add(jettons[owner][master], v)
	}
	for _, tx := range sub.Transactions {
		for _, m := range tx.Messages {
			switch {
			case m.Direction == "out" && m.Destination == nil && m.FwdFee != nil:
				out.Fees[tx.Account] += *m.FwdFee
			case m.Direction == "in":
				out.Fees[tx.Account] += tx.TotalFees
				if m.Source == nil {
					continue
				}
				if fee, ok := sentFee[m.MsgHash]; ok {
					out.Fees[*m.Source] += fee
				}
				out.Changes[*m.Source] -= *m.Value
				out.Changes[tx.Account] += *m.Value
				master := f.Interfaces[tx.Account]["JettonWallet"].Jetton
				if m.Opcode == nil || uint32(*m.Opcode) != uint32(abi.JettonTransferMsgOpCode) || master == "" {
					continue
				}
				cells, err := boc.DeserializeBocBase64(m.Content.Body)
				require.NoError(t, err)
				_, err = cells[0].ReadUint(32)
				require.NoError(t, err)
				var body abi.JettonTransferMsgBody
				require.NoError(t, tlb.Unmarshal(cells[0], &body))
				to, err := ton.AccountIDFromTlb(body.Destination)
				require.NoError(t, err)
				amount := big.Int(body.Amount)
				addJetton(*m.Source, master, new(big.Int).Neg(&amount))
				addJetton(fmt.Sprintf("%d:%X", to.Workchain, to.Address[:]), master, &amount)
			}
		}
	}
	for a, fee := range out.Fees {
		out.Changes[a] -= fee
	}
	for owner, byMaster := range jettons {
		out.Jettons[owner] = map[string]string{}
		for master, v := range byMaster {
			out.Jettons[owner][master] = v.String()
		}
	}
	return out
}

// TestV3BalanceChanges imports toncenter's 77 traces and asks for each
// trace's balance changes: they equal what the trace JSON says, counted
// here from its own fields (raw upper-case addresses; jetton moves under
// the masters the indexer names). An action's changes are its own
// transactions' (the first left out when a message from inside the chain
// started it); a contract deploy answers nulls; unknown ids 404; bad or
// unknown parameters 422 naming them.
func TestV3BalanceChanges(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.FixturesDir(t), "toncenter-traces", "traces", "*.json"))
	require.NotEmpty(t, files)
	traces := make([]*fixtureTrace, len(files))
	for i, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		traces[i] = &fixtureTrace{}
		require.NoError(t, json.Unmarshal(raw, traces[i]), f)
	}
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := importedFixtures(t, db, files)
			h := newServer(t, server.Options{Resolver: &resolvers.Resolver{Store: st}})
			get := func(q url.Values) balanceAnswer {
				t.Helper()
				rec := doRequest(h, http.MethodGet, "/api/v3/balanceChanges?"+q.Encode(), "")
				require.Equal(t, 200, rec.Code, rec.Body.String())
				var out balanceAnswer
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
				return out
			}
			movedJettons := 0
			for _, tr := range traces {
				want := expectedChanges(t, tr)
				got := get(url.Values{"trace_id": {tr.Trace.TraceID}})
				require.Equal(t, want, got, tr.Trace.TraceID)
				movedJettons += len(got.Jettons)
			}
			require.Greater(t, movedJettons, 0, "some traces move jettons")

			// actions: each one's transactions, the first left out when an
			// internal message started it
			rec := doRequest(h, http.MethodGet, "/api/v3/actions?limit=200", "")
			require.Equal(t, 200, rec.Code)
			var page struct {
				Actions []struct {
					ActionID     string   `json:"action_id"`
					TraceID      string   `json:"trace_id"`
					Type         string   `json:"type"`
					Transactions []string `json:"transactions"`
				} `json:"actions"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
			require.NotEmpty(t, page.Actions)
			byID := map[string]*fixtureTrace{}
			for _, tr := range traces {
				byID[tr.Trace.TraceID] = tr
			}
			deploys, checked := 0, 0
			for _, a := range page.Actions {
				got := get(url.Values{"action_id": {a.ActionID}})
				if a.Type == "ContractDeploy" {
					deploys++
					require.Equal(t, balanceAnswer{}, got)
					continue
				}
				tr := byID[a.TraceID]
				require.NotNil(t, tr)
				in := map[string]bool{}
				for _, h := range a.Transactions {
					in[h] = true
				}
				sub := *tr
				sub.Transactions = nil
				first := true
				for _, tx := range tr.Transactions { // the file lists them by lt
					if !in[tx.Hash] {
						continue
					}
					if first {
						first = false
						if startedInside(tx.Messages) {
							continue
						}
					}
					sub.Transactions = append(sub.Transactions, tx)
				}
				// forward fees of messages sent by the trace's other
				// transactions still count: the sender is in the trace
				want := expectedChangesWithin(t, tr, &sub)
				require.Equal(t, want, got, a.ActionID)
				checked++
			}
			require.Greater(t, checked, 50)
			require.Greater(t, deploys, 0)

			for _, c := range []struct {
				query  string
				status int
				want   string
			}{
				{"", 422, "trace_id: required"},
				{"trace_id=zz", 422, "trace_id:"},
				{"trace_id=" + url.QueryEscape(traces[0].Trace.TraceID) + "&action_id=x", 422, "action_id: give trace_id or action_id"},
				{"trace=x", 422, "trace: is not a parameter"},
				{"action_id=%01", 422, "action_id:"},
				{"trace_id=" + url.QueryEscape("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), 404, "trace not found"},
				{"action_id=nosuchaction", 404, "action_id not found"},
			} {
				rec := doRequest(h, http.MethodGet, "/api/v3/balanceChanges?"+c.query, "")
				require.Equal(t, c.status, rec.Code, c.query)
				require.Contains(t, rec.Body.String(), c.want, c.query)
			}
		})
	}
}

// startedInside: the transaction's inbound message came from an account.
func startedInside(msgs []fixtureMsg) bool {
	for _, m := range msgs {
		if m.Direction == "in" {
			return m.Source != nil
		}
	}
	return false
}

type fixtureMsg struct {
	Direction   string  `json:"direction"`
	MsgHash     string  `json:"msg_hash"`
	Source      *string `json:"source"`
	Destination *string `json:"destination"`
	Value       *int64  `json:"value"`
	FwdFee      *int64  `json:"fwd_fee"`
	Opcode      *int64  `json:"opcode"`
	Content     *struct {
		Body string `json:"body"`
	} `json:"message_content"`
}
