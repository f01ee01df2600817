package actions_test

import (
	"testing"

	"github.com/tonkeeper/tongo/abi"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/internal/testenv"
)

// What toncenter decides for Coffee and Tonco deposit branches, checked on
// the real traces with one step changed: a branch is never failed, it
// needs the step toncenter's matcher needs (Coffee's depository deploy,
// Tonco's add_liquidity at the user's account), and a Coffee pool that
// minted nothing is no part of the deposit.

const (
	// Coffee TON + CES deposit: both assets from one wallet message.
	coffeeDepositTrace = "toncenter-traces/traces/NVBb_A--g2M72byFHECct41iFyC7T53sbr6R11CltLw=.json"
	coffeeDepositPool  = "0:3935D9DA614B3283413B319B8845DBDD0857ECB5D06BEC2428A697EF86AA8691"
	// Tonco TON + USDT deposit: both assets from one wallet message.
	toncoDepositTrace = "toncenter-traces/traces/0GW2kNF4nRhw5xA3b5E35-EhF9H25H3Nvm5MJJo2VD0=.json"
)

// inOp reports a transaction whose in-message has the op and, when from is
// set, comes from that account.
func inOp(op abi.MsgOpCode, from string) func(tx *chain.Transaction) bool {
	return func(tx *chain.Transaction) bool {
		m := tx.InMsg
		return m != nil && m.Opcode != nil && *m.Opcode == uint32(op) && (from == "" || m.Source == from)
	}
}

// dropFirst removes the first transaction (by lt) that match reports, and
// every transaction it caused: the step never happened.
func dropFirst(match func(*chain.Transaction) bool) func(tr *chain.ToncenterTrace) {
	return func(tr *chain.ToncenterTrace) {
		gone := map[chain.Hash]bool{} // messages of dropped transactions
		dropped := false
		kept := tr.Transactions[:0]
		for _, tx := range tr.Transactions {
			caused := tx.InMsg != nil && gone[tx.InMsg.Hash]
			if caused || (!dropped && match(tx)) {
				dropped = dropped || !caused
				for _, m := range tx.OutMsgs {
					gone[m.Hash] = true
				}
				continue
			}
			kept = append(kept, tx)
		}
		tr.Transactions = kept
	}
}

// failAll has every transaction that match reports fail its compute phase.
func failAll(match func(*chain.Transaction) bool) func(tr *chain.ToncenterTrace) {
	return func(tr *chain.ToncenterTrace) {
		for _, tx := range tr.Transactions {
			if match(tx) {
				tx.ComputeSuccess, tx.ComputeExitCode = false, 500
			}
		}
	}
}

func liquidityFixture(t *testing.T, file string, edit func(*chain.ToncenterTrace)) results {
	t.Helper()
	return resultsOf(t, classifyFile(t, testenv.Fixture(t, file), edit))
}

func TestCoffeeDepositAsToncenter(t *testing.T) {
	t.Run("pool refunds", func(t *testing.T) {
		// The pool mints no LP jettons (its answer to
		// deposit_liquidity_internal is gone): both branches stay ok
		// deposits without pool, and the pool's transaction is none of
		// theirs.
		got := liquidityFixture(t, coffeeDepositTrace, dropFirst(inOp(abi.JettonInternalTransferMsgOpCode, coffeeDepositPool)))
		deposits := got.ofKind("DexDepositLiquidity")
		if len(deposits) != 2 {
			t.Fatalf("actions %v, want two deposits", got.kinds())
		}
		for _, a := range deposits {
			if a.Status != chain.StatusOK || a.v["pool"] != nil || a.v["lp_amount"] != nil {
				t.Errorf("deposit %s %v, want ok without pool or LP", a.Status, a.v)
			}
			for _, acc := range a.Accounts {
				if acc == coffeeDepositPool {
					t.Errorf("deposit spans the pool's refusal: %v", a.Accounts)
				}
			}
		}
	})
	t.Run("depository not deployed", func(t *testing.T) {
		// The first branch's deploy of the depository is gone: that
		// branch is no deposit; the other one still is.
		got := liquidityFixture(t, coffeeDepositTrace, dropFirst(inOp(abi.CoffeeDeployMsgOpCode, "")))
		a := got.one(t, "DexDepositLiquidity")
		if a.Status != chain.StatusOK || a.v["pool"] != coffeeDepositPool {
			t.Errorf("remaining deposit %s %v, want the completing branch, ok", a.Status, a.v)
		}
	})
}

func TestToncoDepositAsToncenter(t *testing.T) {
	t.Run("account contract failed", func(t *testing.T) {
		// Toncenter reports a Tonco deposit ok whatever its steps did.
		got := liquidityFixture(t, toncoDepositTrace, failAll(inOp(abi.Accountv3AddLiquidityMsgOpCode, "")))
		got.expect(t, "ContractDeploy:ok", "DexDepositLiquidity:ok", "DexDepositLiquidity:ok")
	})
	t.Run("pool did not record a branch", func(t *testing.T) {
		// The TON branch's add_liquidity is gone: that branch is no
		// deposit; the USDT branch, which completed the position, is.
		got := liquidityFixture(t, toncoDepositTrace, dropFirst(inOp(abi.Accountv3AddLiquidityMsgOpCode, "")))
		a := got.one(t, "DexDepositLiquidity")
		if a.v["lp_amount"] != "1398855824493" {
			t.Errorf("remaining deposit %v, want the USDT branch with the position", a.v)
		}
	})
}

func TestDedustDepositStatusAsToncenter(t *testing.T) {
	t.Run("LP wallet failed", func(t *testing.T) {
		// The pool minted LP jettons; the user's LP wallet failing to take
		// them does not make toncenter's deposit failed.
		const merged = "toncenter-traces/traces/-0M6pWgvSrqN06gIYbqrG2UbMCBKwiSuhR3-mZzRCS0=.json"
		got := liquidityFixture(t, merged, failAll(inOp(abi.JettonInternalTransferMsgOpCode, "0:84868F284AFCD59DE33EAB700B57D18C3A8473946370AC6B6AE29DB1DD29C89C")))
		got.one(t, "DexDepositLiquidity:ok")
	})
	t.Run("partial, a step aborted", func(t *testing.T) {
		// A deposit without pool is never failed: the factory's
		// transaction aborting after it topped the deposit contract up
		// changes nothing.
		var b abi.DedustDepositLiquidityMsgBody
		b.Amount, b.PoolParams = 10, ddPoolParams()
		factory := ddFactoryStep()
		factory.tx.ComputeSuccess, factory.tx.ComputeExitCode = false, 100
		tr := ext(ddWallet, call(ddTonVault, 300_000_000, cellOf(op(abi.DedustDepositLiquidityMsgOpCode), tlbOf(b)), factory))
		classify(t, tr, nil).only(t, "DexDepositLiquidity:ok")
	})
}
