package actions

import "github.com/tonql/tonql/chain"

// ClassifyStrict is Classify letting a matcher's panic through, so tests
// see what production logs and skips.
func ClassifyStrict(tr *chain.Trace, known chain.KnownContracts) []chain.Action {
	return classify(tr, known, true)
}
