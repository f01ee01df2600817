package fees

import (
	"context"

	"github.com/tonql/tonql/chain"
)

// Other emulations of the server (get methods) read the chain the way
// estimates do: through the same source, config and clock.

// State returns an account's current state from the estimator's source
// (the store, or lite servers when configured, preferring the fresher),
// nil when the source knows nothing of it. Concurrent reads of one account
// share one source read.
func (e *Estimator) State(ctx context.Context, rawAddr string) (*chain.AccountState, error) {
	return e.account(ctx, rawAddr)
}

// VMConfig is the validated blockchain config estimates run with.
type VMConfig struct {
	Key       [32]byte // identifies config and libraries
	Config    []byte   // BOC of the config dictionary
	Libraries []byte   // BOC of the library dictionary (HashmapE 256 ^Cell), or nil
	Origin    string   // ConfigFromSource or ConfigFromEmbedded
}

// VMConfig returns the config estimates currently use.
func (e *Estimator) VMConfig(ctx context.Context) (VMConfig, error) {
	p, err := e.config(ctx)
	if err != nil {
		return VMConfig{}, err
	}
	return VMConfig{Key: p.key, Config: p.config, Libraries: p.libs, Origin: p.origin}, nil
}

// Now is the chain time estimates run at now (FEE_CLOCK).
func (e *Estimator) Now(ctx context.Context) (ChainTime, error) { return e.now(ctx) }

// ClockName says which clock Now reads: ClockWall or ClockHead.
func (e *Estimator) ClockName() string { return e.opts.ClockName }

// CheckBOC validates a client's base64 BOC field the way estimate fields
// are checked (either alphabet, one root, the limits of an external
// message) and returns its bytes; errors name field.
func CheckBOC(field, s string) ([]byte, error) { return checkBOC(field, s) }
