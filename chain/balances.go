package chain

import "math/big"

// BalanceChanges is what a trace, or an action of it, moved: nanotons
// gained (negative: lost) net of fees, the fees paid, and jettons gained
// by owner and master (decimal). Addresses are raw upper-case.
type BalanceChanges struct {
	Ton     map[string]int64
	Fees    map[string]int64
	Jettons map[string]map[string]*big.Int
}
