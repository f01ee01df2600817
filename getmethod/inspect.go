package getmethod

import (
	"errors"

	"github.com/tonkeeper/tongo/code"
	"github.com/tonkeeper/tongo/utils"

	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
)

// MethodSet is the get methods a contract's code has; nil when the code
// cannot be listed (code in a library cell): every method is then tried.
type MethodSet map[int64]bool

// Has tells whether the code may answer m.
func (s MethodSet) Has(m Method) bool {
	return s == nil || s[int64(utils.MethodIdFromName(m.Name))]
}

// Inspect lists a state's get methods and hashes its code and data, for
// readers that tell contracts apart by the methods they answer (the token
// registry, package contracts). An error: no code to read.
func Inspect(st *chain.AccountState) (methods MethodSet, codeHash, dataHash chain.Hash, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("malformed state")
		}
	}()
	sa, err := fees.DecodeShardAccount(st.ShardAccountBOC)
	if err != nil {
		return nil, codeHash, dataHash, err
	}
	init := sa.Account.Account.Storage.State.AccountActive.StateInit
	if !init.Code.Exists || !init.Data.Exists {
		return nil, codeHash, dataHash, errors.New("no code or data")
	}
	codeCell, dataCell := init.Code.Value.Value, init.Data.Value.Value
	h, err := codeCell.Hash256()
	if err != nil {
		return nil, codeHash, dataHash, err
	}
	codeHash = chain.Hash(h)
	if h, err = dataCell.Hash256(); err != nil {
		return nil, codeHash, dataHash, err
	}
	dataHash = chain.Hash(h)
	if codeCell.IsLibrary() {
		return nil, codeHash, dataHash, nil
	}
	codeCell.ResetCounters()
	raw, err := codeCell.ToBoc()
	if err != nil {
		return nil, codeHash, dataHash, err
	}
	ids, err := code.ParseContractMethods(raw)
	if err != nil {
		return nil, codeHash, dataHash, nil // unusual layout: try them all
	}
	methods = make(MethodSet, len(ids))
	for _, id := range ids {
		methods[id] = true
	}
	return methods, codeHash, dataHash, nil
}
