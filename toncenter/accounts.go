package toncenter

import (
	"encoding/base64"
	"strconv"

	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/chain"
)

// AddressInformation is toncenter v3's V2AddressInformation
// (/api/v3/addressInformation and /api/v3/account).
type AddressInformation struct {
	Balance             string  `json:"balance"`
	Code                *string `json:"code"`
	Data                *string `json:"data"`
	LastTransactionLt   *string `json:"last_transaction_lt"`
	LastTransactionHash *string `json:"last_transaction_hash"`
	FrozenHash          *string `json:"frozen_hash"`
	Status              string  `json:"status"`
}

// WalletInformation is toncenter v3's V2WalletInformation
// (/api/v3/walletInformation and /api/v3/wallet).
type WalletInformation struct {
	Balance             string  `json:"balance"`
	WalletType          *string `json:"wallet_type,omitempty"`
	Seqno               *int64  `json:"seqno,omitempty"`
	WalletID            *int64  `json:"wallet_id,omitempty"`
	LastTransactionLt   string  `json:"last_transaction_lt"`
	LastTransactionHash string  `json:"last_transaction_hash"`
	Status              string  `json:"status"`
}

func b64ptr(b []byte) *string {
	if len(b) == 0 {
		return nil
	}
	return ptr(base64.StdEncoding.EncodeToString(b))
}

// RenderAddressInformation renders a decoded account state. An account
// the store knows nothing of shows as toncenter shows one that does not
// exist: uninit, balance 0, no last transaction.
func RenderAddressInformation(i *accountinfo.Info) *AddressInformation {
	out := &AddressInformation{Balance: u64(i.Balance), Code: b64ptr(i.Code), Data: b64ptr(i.Data),
		FrozenHash: b64ptr(i.FrozenHash), Status: status(i.Status)}
	// An account never seen shows lt 0 and the zero hash, as toncenter.
	out.LastTransactionLt = ptr(u64(i.LastTxLt))
	out.LastTransactionHash = ptr(i.LastTxHash.Base64())
	return out
}

// RenderWalletInformation renders a decoded account state as a wallet:
// type, seqno and wallet id when the code is a wallet this server knows.
// Another account is answered without them (toncenter's use_v2 answer;
// its default answers 409).
func RenderWalletInformation(i *accountinfo.Info) *WalletInformation {
	out := &WalletInformation{Balance: u64(i.Balance), LastTransactionLt: strconv.FormatUint(i.LastTxLt, 10),
		LastTransactionHash: i.LastTxHash.Base64(), Status: status(i.Status)}
	if w := i.Wallet; w != nil {
		out.WalletType, out.Seqno, out.WalletID = ptr(w.Type), w.Seqno, w.WalletID
	}
	return out
}

// status names an account state as toncenter v3 does (tonlib's
// "uninitialized" is "uninit").
func status(s string) string {
	if s == accountinfo.StateUninitialized {
		return "uninit"
	}
	return s
}

// AccountStateFull is toncenter's AccountStateFull (/api/v3/accountStates).
type AccountStateFull struct {
	Address             string            `json:"address"`
	Hash                string            `json:"account_state_hash"`
	Balance             *string           `json:"balance"`
	ExtraCurrencies     map[string]string `json:"extra_currencies"`
	Status              *string           `json:"status"`
	FrozenHash          *string           `json:"frozen_hash,omitempty"`
	LastTransactionHash *string           `json:"last_transaction_hash"`
	LastTransactionLt   *string           `json:"last_transaction_lt"`
	DataHash            *string           `json:"data_hash,omitempty"`
	CodeHash            *string           `json:"code_hash,omitempty"`
	DataBoc             *string           `json:"data_boc,omitempty"`
	CodeBoc             *string           `json:"code_boc,omitempty"`
	ContractMethods     *[]uint32         `json:"contract_methods"`
	Interfaces          *[]string         `json:"interfaces"`
}

// WalletState is toncenter's WalletState (/api/v3/walletStates).
type WalletState struct {
	Address             string            `json:"address"`
	IsWallet            bool              `json:"is_wallet"`
	WalletType          *string           `json:"wallet_type,omitempty"`
	Seqno               *int64            `json:"seqno,omitempty"`
	WalletID            *int64            `json:"wallet_id,omitempty"`
	Balance             *string           `json:"balance,omitempty"`
	ExtraCurrencies     map[string]string `json:"extra_currencies,omitempty"`
	IsSignatureAllowed  *bool             `json:"is_signature_allowed,omitempty"`
	Status              *string           `json:"status,omitempty"`
	CodeHash            *string           `json:"code_hash,omitempty"`
	LastTransactionHash *string           `json:"last_transaction_hash"`
	LastTransactionLt   *string           `json:"last_transaction_lt"`
}

// AccountStatesResponse is toncenter's (metadata always {}).
type AccountStatesResponse struct {
	Accounts    []*AccountStateFull `json:"accounts"`
	AddressBook chain.AddressBook   `json:"address_book"`
	Metadata    map[string]any      `json:"metadata"`
}

// WalletStatesResponse is toncenter's (metadata always {}).
type WalletStatesResponse struct {
	Wallets     []*WalletState    `json:"wallets"`
	AddressBook chain.AddressBook `json:"address_book"`
	Metadata    map[string]any    `json:"metadata"`
}

// cellHash is the hash of a BOC's root, base64.
func cellHash(b []byte) *string {
	if len(b) == 0 {
		return nil
	}
	cells, err := boc.DeserializeBoc(b)
	if err != nil || len(cells) != 1 {
		return nil
	}
	h, err := cells[0].Hash()
	if err != nil {
		return nil
	}
	return ptr(base64.StdEncoding.EncodeToString(h))
}

// accountHash is the hash of the Account cell a stored ShardAccount
// refers to: toncenter's account_state_hash.
func accountHash(shardAccount []byte) string {
	cells, err := boc.DeserializeBoc(shardAccount)
	if err != nil || len(cells) != 1 || cells[0].RefsSize() == 0 {
		return ""
	}
	h, err := cells[0].Refs()[0].Hash()
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(h)
}

func currencies(m map[uint32]string) map[string]string {
	out := map[string]string{}
	for id, v := range m {
		out[strconv.FormatUint(uint64(id), 10)] = v
	}
	return out
}

// RenderAccountState renders a stored account state; code and data BOCs
// only when includeBOC. contract_methods is null (not computed here).
func RenderAccountState(st *chain.AccountState, i *accountinfo.Info, interfaces []string, includeBOC bool) *AccountStateFull {
	out := &AccountStateFull{
		Address: st.Address, Hash: accountHash(st.ShardAccountBOC), Balance: ptr(u64(i.Balance)),
		ExtraCurrencies: currencies(i.ExtraCurrencies), Status: ptr(status(i.Status)),
		FrozenHash: b64ptr(i.FrozenHash), LastTransactionHash: ptr(i.LastTxHash.Base64()),
		LastTransactionLt: ptr(u64(i.LastTxLt)), DataHash: cellHash(i.Data), CodeHash: cellHash(i.Code),
	}
	if includeBOC {
		out.DataBoc, out.CodeBoc = b64ptr(i.Data), b64ptr(i.Code)
	}
	if interfaces == nil {
		interfaces = []string{}
	}
	out.Interfaces = &interfaces
	return out
}

// RenderWalletState renders a stored account state as toncenter's
// WalletState: the wallet fields when its code is a wallet this server
// knows.
func RenderWalletState(st *chain.AccountState, i *accountinfo.Info) *WalletState {
	out := &WalletState{
		Address: st.Address, Balance: ptr(u64(i.Balance)), Status: ptr(status(i.Status)),
		CodeHash: cellHash(i.Code), LastTransactionHash: ptr(i.LastTxHash.Base64()),
		LastTransactionLt: ptr(u64(i.LastTxLt)),
	}
	if len(i.ExtraCurrencies) > 0 {
		out.ExtraCurrencies = currencies(i.ExtraCurrencies)
	}
	if w := i.Wallet; w != nil {
		out.IsWallet = true
		out.WalletType, out.Seqno, out.WalletID, out.IsSignatureAllowed = ptr(w.Type), w.Seqno, w.WalletID, w.IsSignatureAllowed
	}
	return out
}
