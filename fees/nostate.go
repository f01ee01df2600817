package fees

import "github.com/tonql/tonql/apperr"

// NoState is the error for an account the server holds no state of (none
// stored, no lite server asked): whether it is active, uninitialized or
// absent is a fact about the chain this server cannot state, so it says
// so, and how to give it one, instead of guessing "uninitialized" (an
// active wallet would read as new). why adds what is known, "" for
// nothing.
func NoState(raw, why string) *apperr.Error {
	if why != "" {
		why = " (" + why + ")"
	}
	return apperr.New(apperr.NotFound, "this server holds no state of account %s%s: set LITE_SERVERS to read states from the chain, "+
		"or import data that holds it (tonql import of a fee-replay file with its states, or tonql follow)", raw, why)
}
