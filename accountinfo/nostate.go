package accountinfo

import (
	"strconv"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// Resolve is Decode for an account that may have no stored state: the
// chain's word on it then comes from its last transaction the server
// holds, the stored one (last) or the one a follower recorded on the
// account's row (st without a state), whichever is newer. Only a
// transaction that left the account nonexistent makes a whole answer
// (uninitialized, nothing on it); one that left it uninitialized does not
// tell its balance, and one that left it active or frozen its state:
// those, and an account of which nothing is held, are fees.NoState errors
// naming what is known.
func Resolve(raw string, st *chain.AccountState, last *chain.Transaction) (*Info, error) {
	if st != nil && len(st.ShardAccountBOC) > 0 {
		return Decode(st)
	}
	status, lt, hash, utime := "", uint64(0), chain.Hash{}, uint32(0)
	if last != nil {
		status, lt, hash, utime = last.EndStatus, last.Lt, last.Hash, last.Utime
	}
	if st != nil && st.Status != "" && st.LastTxLt > lt {
		status, lt, hash, utime = st.Status, st.LastTxLt, st.LastTxHash, 0
	}
	switch status {
	case "":
		return nil, fees.NoState(raw, "")
	case chain.AccountNonexist:
		return &Info{Known: true, Status: StateUninitialized, LastTxLt: lt, LastTxHash: hash, SyncUtime: utime}, nil
	}
	return nil, fees.NoState(raw, "its last transaction held here, lt "+strconv.FormatUint(lt, 10)+", left it "+status+"; its state since is not held")
}
