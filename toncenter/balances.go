package toncenter

import "github.com/tonql/tonql/chain"

// BalanceChangesResult is the answer of /api/v3/balanceChanges: nanotons
// gained net of fees, fees paid, and jettons gained (decimal) by owner
// and master; raw addresses as keys. An action that reports nothing (a
// contract deploy) has all three null, as toncenter answers it.
type BalanceChangesResult struct {
	Ton     map[string]int64             `json:"changes"`
	Fees    map[string]int64             `json:"fees"`
	Jettons map[string]map[string]string `json:"jettons"`
}

// RenderBalanceChanges draws c in toncenter's shape; nil is the empty
// answer.
func RenderBalanceChanges(c *chain.BalanceChanges) *BalanceChangesResult {
	if c == nil {
		return &BalanceChangesResult{}
	}
	out := &BalanceChangesResult{Ton: c.Ton, Fees: c.Fees, Jettons: map[string]map[string]string{}}
	for owner, byMaster := range c.Jettons {
		out.Jettons[owner] = map[string]string{}
		for master, v := range byMaster {
			out.Jettons[owner][master] = v.String()
		}
	}
	return out
}
