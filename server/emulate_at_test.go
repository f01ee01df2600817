package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/wallet"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/internal/walletmsg"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/tonconnect"
)

// TestPreviewAtPastBlock: on each database, the fee-replay block (its
// accounts' states before it) and an older masterchain block (tongo's
// block-5, no states). At the replay's masterchain block, read as a past
// block (store.BlockStates, on an estimator whose own clock is the wall's),
// every signed external message of the block and the TON Connect request
// of each v4R2/v5R1 transfer preview at exactly the fees the chain
// charged. At the older block the store holds blocks but no state of the
// sender, and a block it never held: both 422s naming mc_block_seqno.
func TestPreviewAtPastBlock(t *testing.T) {
	const replaySeqno, replayStartLt = 66519406, 76734069000000
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			ctx := context.Background()
			r := importFeeReplay(t, db)
			old, err := ingest.ParseFile(testenv.Fixture(t, "blocks/block-5.bin"))
			require.NoError(t, err)
			_, err = ingest.New(r.st).ImportFile(ctx, testenv.Fixture(t, "blocks/block-5.bin"))
			require.NoError(t, err)
			oldSeqno := old.Blocks[0].McSeqno
			require.NotZero(t, oldSeqno)

			bs, err := r.st.StatesAt(ctx, replaySeqno)
			require.NoError(t, err)
			require.NotNil(t, bs)
			require.Equal(t, uint64(replayStartLt), bs.StartLt)
			at := &fees.At{Time: fees.ChainTime{Unix: bs.Utime, Lt: bs.StartLt}, Source: bs}
			res := &resolvers.Resolver{Store: r.st, Fees: fees.New(r.st, nil, fees.Options{})}
			tonConnect := 0
			for _, m := range r.msgs {
				pv, err := res.PreviewAt(ctx, fees.Params{Boc: m.Message}, at)
				require.NoError(t, err, m.Account.ToRaw())
				want := m.Charged
				want.Type = pv.SourceFees.Type
				require.Equal(t, want, pv.SourceFees, m.Account.ToRaw())
				require.Equal(t, bs.Utime, pv.Utime)

				st, err := bs.Account(ctx, chain.RawAddress(m.Account))
				require.NoError(t, err)
				info, err := accountinfo.Decode(st)
				require.NoError(t, err)
				if m.BodyByRef || info.Wallet == nil || (info.Wallet.Version != wallet.V4R2 && info.Wallet.Version != wallet.V5R1) {
					continue
				}
				msgs, sent, err := walletmsg.TonConnectOf(m.Message, info.Wallet.Version)
				require.NoError(t, err)
				p := tonconnect.Params{From: m.Account.ToHuman(true, false), ValidUntil: time.Now().Add(time.Hour).Unix()}
				for i := range msgs {
					p.Messages = append(p.Messages, tonconnect.Message(msgs[i]))
				}
				tc, err := res.PreviewTonConnectAt(ctx, p, at)
				require.NoError(t, err)
				if tc.SourceFees == want {
					tonConnect++
				} else {
					t.Logf("%s: %d messages; the app laid a body out by reference (see tonconnect.TestPreviewFeesEqualChain)", m.Account.ToRaw(), len(sent))
				}
			}
			require.GreaterOrEqual(t, tonConnect, 4, "TON Connect requests at the chain's fees")

			h := r.headHandler()
			for _, c := range []struct {
				seqno uint32
				says  string
			}{{oldSeqno, "holds no state of"}, {oldSeqno + 1, "holds no block of it"}} {
				b, _ := json.Marshal(map[string]any{"boc": r.msgs[0].Message, "mc_block_seqno": c.seqno})
				rec := doRequest(h, http.MethodPost, "/api/emulate/v1/emulateTrace", string(b))
				checkV3Error(t, rec, 422, "mc_block_seqno: ")
				require.Contains(t, rec.Body.String(), c.says)
			}
		})
	}
}
