package actions_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/ingest"
	"github.com/tonql/tonql/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite actions/testdata/*.golden.json from the classifier's output")

// goldenCase is one whole trace of a real block, found by what it contains
// (never by its id), and the actions it must decode to. The golden file
// holds every field; want lists "Type:status" of the actions, which is what
// was checked by hand against the trace when the golden was written (the
// comment of each case says why the answer is right).
type goldenCase struct {
	name string
	file string // relative to the fixtures folder
	pick func(tr *chain.Trace) bool
	want []string // sorted "Type:status"
}

// coreGoldens are the traces of the seed's types. A protocol's goldens live
// in its own test file and run through checkGoldens the same way.
var coreGoldens = []goldenCase{
	{
		// A wallet asks an NFT item to transfer itself (op 0x5fcc3d14); the
		// item is not owned by the sender, fails and bounces the request.
		// Right: one NftItemTransfer, failed, sender = the wallet, recipient
		// = new_owner of the request; the bounce is its change, not an action.
		name: "nft_transfer_bounced",
		file: "blocks/block-2.bin",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool {
				return opIs(tx.InMsg, abi.NftTransferMsgOpCode) && !tx.Success()
			}) && hasTx(tr, func(tx *chain.Transaction) bool { return tx.InMsg != nil && tx.InMsg.Bounced })
		},
		want: []string{"NftItemTransfer:failed"},
	},
	{
		// A jetton transfer whose receiving jetton wallet did not exist:
		// internal_transfer deploys it, then the notification to the new
		// owner fails. Right: the jettons did move (both wallets accepted),
		// so the JettonTransfer is ok, amount 432151000000 and the comment
		// as the request carries them, over 5 transactions (wallet, both
		// jetton wallets, notification, excess); the failed notification is
		// the recipient's own business. The new wallet is a ContractDeploy
		// by the sender's jetton wallet.
		name: "jetton_transfer_deploys_wallet",
		file: "blocks/block-2.bin",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool {
				return opIs(tx.InMsg, abi.JettonInternalTransferMsgOpCode) && deploys(tx)
			})
		},
		want: []string{"ContractDeploy:ok", "JettonTransfer:ok"},
	},
	{
		// STON.fi v1 (swap 0x25938561): a contract called by a wallet
		// (the SmartContractExec of op 0x7a4594a2) sends TON through the
		// router's pTON wallet, which notifies the router itself; the pool
		// answers with a payment request, and the router pays back through
		// the same pTON wallet the same 148899201000. Right: the swap did
		// not happen, a refund: JettonSwap failed, amount_out = amount_in,
		// sender = recipient = the calling contract; the router's payment
		// request belongs to the swap.
		name: "stonfi_v1_swap",
		file: "blocks/block-3.bin",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.StonfiSwapMsgOpCode) })
		},
		want: []string{"JettonSwap:failed", "SmartContractExec:ok"},
	},
	{
		// STON.fi v2 (swap 0x6664de2a, pay_to 0x657b54f5): the earlier of
		// the two in the block. The user's wallet sends 2617761542 jettons
		// to the router's wallet; pay_to sends them back through that same
		// router wallet to the same user wallet. Right: a refund, so the
		// JettonSwap is failed with amount_out = amount_in, and the router's
		// pay_to step belongs to the swap (no SmartContractExec of its own).
		name: "stonfi_v2_swap",
		file: "fee-replay/tvm_replay_fat_block_66519406.json",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.StonfiSwapV2MsgOpCode) })
		},
		want: []string{"JettonSwap:failed"},
	},
	{
		// Telemint deploy_v2 (0x4637289b): the collection deploys an item
		// (teleitem_deploy 0x299a3e15), which announces its owner
		// (ownership_assigned, with Telemint's bid info payload, fails at
		// the owner's contract) and fills up two addresses (royalty and
		// beneficiary). Right, as toncenter reports a mint: the item's
		// deploy transaction is an NftMint (collection = the deploying
		// Telemint collection, index from the item's initial config) and a
		// ContractDeploy; ownership_assigned alone is a transfer from
		// nobody to the first owner (ok: the item did assign it; the
		// owner's failure is its own; not a purchase, the item was just
		// minted); the deploy request and the fill-ups stay
		// SmartContractExec (toncenter counts payouts only for a bid that
		// ended an auction).
		name: "telemint_deploy_failed_step",
		file: "fee-replay/tvm_replay_fat_block_66519406.json",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.TelemintDeployV2MsgOpCode) }) &&
				hasTx(tr, func(tx *chain.Transaction) bool { return !tx.Success() })
		},
		want: []string{"ContractDeploy:ok", "NftItemTransfer:ok", "NftMint:ok", "SmartContractExec:ok", "SmartContractExec:ok", "SmartContractExec:ok"},
	},
	{
		// A Tonstakers withdrawal paid at once: burn (0x595f07bc) of
		// 25797083659 tsTON at the owner's wallet, burn_notification at the
		// tsTON master, withdraw (0x319b0cdc) at the pool, which pays the
		// owner (withdrawal 0x0a77535c, 29638101582 nanotons). Right: one
		// StakeWithdrawal ok over those 5 transactions (the owner's wallet
		// request included), as toncenter reports it (no separate burn or
		// calls): stake_holder = the burn's sender, tokens_burnt = the burn
		// amount, asset = the master, amount = the payout less the 1048796730
		// the pool was sent with the request = 28589304852.
		name: "jetton_burn",
		file: "fee-replay/tvm_replay_fat_block_66519406.json",
		pick: func(tr *chain.Trace) bool {
			return hasTx(tr, func(tx *chain.Transaction) bool { return opIs(tx.InMsg, abi.JettonBurnMsgOpCode) })
		},
		want: []string{"StakeWithdrawal:ok"},
	},
	{
		// A Tonstakers deposit: a wallet sends the pool deposit (0x47d54391)
		// with 521 TON; the pool asks the tsTON master to mint (0x1674b0a0),
		// which sends internal_transfer of 469052560675 tsTON to the
		// depositor's wallet (notification, excess). Right: one StakeDeposit
		// ok over those 6 transactions, as toncenter reports it (the mint is
		// part of it, no JettonMint or call of its own): amount = the value
		// less the pool's 1 TON fee = 520000000000, tokens_minted = the
		// internal_transfer's amount, asset = the master that sent it.
		name: "jetton_mint",
		file: "fee-replay/tvm_replay_fat_block_66519406.json",
		pick: func(tr *chain.Trace) bool {
			var minted bool
			tr.Root.Walk(func(n *chain.TraceNode) bool {
				for _, c := range n.Children {
					if opIs(c.Tx.InMsg, abi.JettonInternalTransferMsgOpCode) &&
						!opIs(n.Tx.InMsg, abi.JettonTransferMsgOpCode) && !opIs(n.Tx.InMsg, abi.JettonInternalTransferMsgOpCode) {
						minted = true
					}
				}
				return true
			})
			return minted
		},
		want: []string{"StakeDeposit:ok"},
	},
}

func TestGoldenTraces(t *testing.T) { checkGoldens(t, coreGoldens) }

// checkGoldens classifies each case's trace (with the facts its file
// carries, such as toncenter's interfaces) and compares every field with
// testdata/NAME.golden.json.
func checkGoldens(t *testing.T, cases []goldenCase) {
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			tr, known := findTrace(t, testenv.Fixture(t, gc.file), gc.pick)
			got := topLevel(actions.Classify(tr, known))
			var kinds []string
			for _, a := range got {
				kinds = append(kinds, a.Type+":"+a.Status)
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, gc.want) {
				t.Errorf("actions %v, want %v", kinds, gc.want)
			}
			compareGolden(t, filepath.Join("testdata", gc.name+".golden.json"), golden(got))
		})
	}
}

// findTrace assembles the file and returns the earliest trace (by start lt,
// then id) that pick accepts.
func findTrace(t *testing.T, path string, pick func(*chain.Trace) bool) (*chain.Trace, chain.KnownContracts) {
	t.Helper()
	p, err := ingest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range chain.NewAssembler().Add(p.Transactions) {
		if pick(tr) {
			return tr, p.Known
		}
	}
	t.Fatalf("no trace of %s matches", path)
	return nil, nil
}

func hasTx(tr *chain.Trace, fn func(*chain.Transaction) bool) bool {
	found := false
	tr.Root.Walk(func(n *chain.TraceNode) bool {
		found = found || fn(n.Tx)
		return !found
	})
	return found
}

// hasLog reports a transaction of the trace that logged the op code (an
// external out-message).
func hasLog(tr *chain.Trace, op uint32) bool {
	return hasTx(tr, func(tx *chain.Transaction) bool {
		for _, m := range tx.OutMsgs {
			if m.Destination == "" && m.Opcode != nil && *m.Opcode == op {
				return true
			}
		}
		return false
	})
}

func opIs(m *chain.Message, op abi.MsgOpCode) bool {
	return m != nil && !m.Bounced && m.Opcode != nil && *m.Opcode == uint32(op)
}

func deploys(tx *chain.Transaction) bool {
	return (tx.OrigStatus == chain.AccountNonexist || tx.OrigStatus == chain.AccountUninit) && tx.EndStatus == chain.AccountActive
}

// goldenAction is an action with the fields the API does not show inline
// (participants and roles, the address book keys, transaction lts), so the
// golden pins them too.
type goldenAction struct {
	chain.Action
	Participants []chain.ActionAccount `json:"participants"`
	Addresses    []string              `json:"addresses"`
	TxLts        []uint64              `json:"tx_lts"`
}

func golden(list []chain.Action) []byte {
	out := make([]goldenAction, len(list))
	for i, a := range list {
		out[i] = goldenAction{Action: a, Participants: a.Participants, Addresses: a.Addresses, TxLts: a.TxLts}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./actions -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the classifier's output; if the change is right, run go test ./actions -run Golden -update\ngot:\n%s", path, got)
	}
}
