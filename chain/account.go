package chain

// Account statuses as the chain reports them.
const (
	AccountActive   = "active"
	AccountUninit   = "uninit"
	AccountFrozen   = "frozen"
	AccountNonexist = "nonexist"
)

// AccountState is what the store keeps about an account: enough for the
// address book (status, wallet or not) and for fee estimation (the full
// ShardAccount BOC and when it was read).
type AccountState struct {
	Address         string // raw upper-case
	Status          string
	CodeHash        *Hash
	IsWallet        bool
	Balance         uint64
	LastTxLt        uint64
	LastTxHash      Hash
	ShardAccountBOC []byte
	ReadAtUtime     uint32   // chain time (unix seconds) the state is valid at
	Interfaces      []string // what the code is (CodeInterfaces)
}

// AccountInterfaces is what an account is known to be, from its code or
// from an indexer's knowledge of it.
type AccountInterfaces struct {
	Address    string // raw upper-case
	Interfaces []string
}

// ChainConfig is the blockchain config as a BOC of the config dictionary
// root, plus the libraries BOC when known.
type ChainConfig struct {
	McSeqno      uint32
	Utime        uint32
	ConfigBOC    []byte
	LibrariesBOC []byte
}

// DNSName is a .ton name resolved to an account.
type DNSName struct {
	Address string // raw upper-case
	Domain  string
}
