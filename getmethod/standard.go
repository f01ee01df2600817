package getmethod

// The get methods the token standards and the contracts toncenter reads
// define, named once here for every package that runs them.
var (
	// TEP-74 jettons.
	GetJettonData = Method{Name: "get_jetton_data"}
	GetWalletData = Method{Name: "get_wallet_data"}
	// TEP-62 NFTs.
	GetCollectionData    = Method{Name: "get_collection_data"}
	GetNftData           = Method{Name: "get_nft_data"}
	GetNftContent        = Method{Name: "get_nft_content"}
	GetNftAddressByIndex = Method{Name: "get_nft_address_by_index"}
	// TEP-81 DNS items.
	DNSResolve    = Method{Name: "dnsresolve"}
	GetDomain     = Method{Name: "get_domain"}
	GetFullDomain = Method{Name: "get_full_domain"}
	// NFT sale contracts (getgems, marketplaces) and vesting wallets.
	GetSaleData    = Method{Name: "get_sale_data"}
	GetVestingData = Method{Name: "get_vesting_data"}
	GetWhitelist   = Method{Name: "get_whitelist"}
	// Multisig v2 wallets and their orders.
	GetMultisigData = Method{Name: "get_multisig_data"}
	GetOrderData    = Method{Name: "get_order_data"}
)
