package actions

import "github.com/tonql/tonql/chain"

// ClassifyStrict is Classify letting a matcher's panic through, so tests
// see what production logs and skips.
func ClassifyStrict(tr *chain.Trace, known chain.KnownContracts) []chain.Action {
	return classify(tr, known, true)
}

// FullStepRuns makes the runs that find steps start at the first matcher
// until the returned function restores the default.
func FullStepRuns() (restore func()) {
	fullStepRuns = true
	return func() { fullStepRuns = false }
}
