package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// TestEmulateIncludeCodeData: toncenter's emulateTrace with
// include_code_data on each database, for every signed external message
// of the imported block: code_cells and data_cells hold BOCs that hash to
// their keys; every emulated account's account_state_after names its code
// and data hash, and each account's last one is a key there. The wallet's
// code is the stored state's and its data is the stored data with the
// seqno one higher (v4R2, v5R1: the message ran). Without the flag
// neither field is in the answer.
func TestEmulateIncludeCodeData(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			r := importFeeReplay(t, db)
			h := r.headHandler()
			seqnos := 0
			for _, m := range r.msgs {
				b, _ := json.Marshal(map[string]any{"boc": m.Message, "include_code_data": true})
				rec := doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(b))
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				var out struct {
					Trace struct {
						TxHash string `json:"tx_hash"`
					} `json:"trace"`
					Transactions map[string]struct {
						Account string `json:"account"`
						Lt      string `json:"lt"`
						After   struct {
							Status   string  `json:"account_status"`
							CodeHash *string `json:"code_hash"`
							DataHash *string `json:"data_hash"`
						} `json:"account_state_after"`
					} `json:"transactions"`
					CodeCells map[string]string `json:"code_cells"`
					DataCells map[string]string `json:"data_cells"`
				}
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
				for _, cells := range []map[string]string{out.CodeCells, out.DataCells} {
					require.NotEmpty(t, cells)
					for hash, bocB64 := range cells {
						raw, err := base64.StdEncoding.DecodeString(bocB64)
						require.NoError(t, err)
						c, err := chain.DecodeRoot(raw)
						require.NoError(t, err)
						got, _ := c.Hash256()
						require.Equal(t, hash, base64.StdEncoding.EncodeToString(got[:]))
					}
				}
				last := map[string]string{} // account -> hash of its last transaction
				for hash, tx := range out.Transactions {
					if tx.After.Status != chain.AccountActive {
						continue
					}
					require.NotNil(t, tx.After.CodeHash, hash)
					require.NotNil(t, tx.After.DataHash, hash)
					if prev, ok := last[tx.Account]; !ok || out.Transactions[prev].Lt < tx.Lt {
						last[tx.Account] = hash
					}
				}
				for _, hash := range last {
					after := out.Transactions[hash].After
					require.Contains(t, out.CodeCells, *after.CodeHash)
					require.Contains(t, out.DataCells, *after.DataHash)
				}
				// the wallet: its stored code, its data after the message
				root := out.Transactions[out.Trace.TxHash]
				st, err := r.st.Account(context.Background(), chain.RawAddress(m.Account))
				require.NoError(t, err)
				before, err := accountinfo.Decode(st)
				require.NoError(t, err)
				code, _ := chain.DecodeRoot(before.Code)
				ch, _ := code.Hash256()
				require.Equal(t, base64.StdEncoding.EncodeToString(ch[:]), *root.After.CodeHash)
				if before.Wallet != nil && before.Wallet.Seqno != nil {
					raw, _ := base64.StdEncoding.DecodeString(out.DataCells[*root.After.DataHash])
					data, err := chain.DecodeRoot(raw)
					require.NoError(t, err)
					if before.Wallet.Version == wallet.V5R1 {
						_, _ = data.ReadBit() // is_signature_allowed
					}
					seqno, err := data.ReadUint(32)
					require.NoError(t, err)
					require.Equal(t, *before.Wallet.Seqno+1, int64(seqno), m.Account.ToRaw())
					seqnos++
				}
			}
			require.Equal(t, 7, seqnos, "v4R2 and v5R1 wallets of the block")
			b, _ := json.Marshal(map[string]any{"boc": r.msgs[0].Message})
			rec := doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(b))
			require.Equal(t, http.StatusOK, rec.Code)
			require.NotContains(t, rec.Body.String(), "code_cells")
			require.NotContains(t, rec.Body.String(), "data_cells")
		})
	}
}
