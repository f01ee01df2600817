package actions

import (
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tonql/tonql/chain"
)

// Descriptions: every action carries a short title (the type's, fixed) and
// one sentence a person reads ("Sent 218.75 USDT to alice.ton"). Each type's
// template is declared with the type (Type.Describe), so a new type cannot be
// added without one (TestEveryTypeDescribes). A template reads the value and
// the names the answer already carries: the address book (.ton domains) and
// the token metadata (symbols, decimals, NFT names); it reads nothing else,
// so a description costs no query and is the same for the same value and
// names, whether the action was just classified, reclassified or previewed.

// describer is a type's template, bound to its value type by describeAs.
type describer func(v any, w *Words) string

// describeAs binds a template written for one value type. The value is a
// pointer to the struct (what DecodeValue returns) or the struct itself.
func describeAs[T any](f func(v *T, w *Words) string) describer {
	return func(v any, w *Words) string {
		switch x := v.(type) {
		case *T:
			return f(x, w)
		case T:
			return f(&x, w)
		}
		return ""
	}
}

// Names is how descriptions name accounts and tokens: the address book and
// the metadata object the answer shows beside its actions. Either may be
// nil (then addresses and raw amounts are said as they are).
type Names struct {
	Book     chain.AddressBook
	Metadata chain.Metadata
}

// Words is what a template writes with: its helpers say an account, an
// amount of TON or of a jetton, an NFT, the way every template says them.
type Words struct {
	names Names
	// Failed is the action's status: a template whose words differ for a
	// failed action (a refunded swap) reads it; sayStatus marks the others.
	Failed bool
}

// Describe is the title and sentence of an action of type typ with the
// stored value raw and status; ok false when the type is not declared or
// its value does not parse (the caller shows no description then, never a
// wrong one).
func Describe(typ, status string, raw []byte, n Names) (title, sentence string, ok bool) {
	t, declared := registry.types[typ]
	if !declared || t.Describe == nil {
		return "", "", false
	}
	v, err := DecodeValue(typ, raw)
	if err != nil {
		return "", "", false
	}
	return t.Title, sayStatus(t.Describe(v, &Words{names: n, Failed: status == "failed"}), status), true
}

// DescribeActions fills Title and Description of each action from the
// names given (the answer's address book and metadata).
func DescribeActions(list []*chain.Action, n Names) {
	for _, a := range list {
		if a == nil {
			continue
		}
		if title, s, ok := Describe(a.Type, a.Status, a.Value, n); ok {
			a.Title, a.Description = title, s
		}
	}
}

// sayStatus marks a failed action's sentence: the template says what was
// attempted, the prefix that it did not happen.
func sayStatus(s, status string) string {
	if status != "failed" || s == "" || strings.HasPrefix(s, "Failed: ") {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return "Failed: " + string(unicode.ToLower(r)) + s[size:]
}

// Account names an address: its .ton domain when the book knows one, else
// the raw address shortened (0:8C6C...AE69C), which a person can still
// compare with the address book's entries.
func (w *Words) Account(a Address) string {
	if a == "" {
		return "an unknown account"
	}
	if e, ok := w.names.Book[string(a)]; ok && e.Domain != nil && *e.Domain != "" {
		return *e.Domain
	}
	return ShortAddress(string(a))
}

// ShortAddress is a raw address with the middle of its hash left out:
// workchain, first 4 and last 5 hex digits.
func ShortAddress(raw string) string {
	i := strings.IndexByte(raw, ':')
	if i < 0 || len(raw)-i-1 < 12 {
		return raw
	}
	h := raw[i+1:]
	return raw[:i+1] + h[:4] + "..." + h[len(h)-5:]
}

// TON says nanotons as TON: "2.748 TON".
func (w *Words) TON(nano BigInt) string {
	if nano == "" {
		return "an unknown amount of TON"
	}
	return decimalString(string(nano), 9) + " TON"
}

// Jetton says an amount of the jetton of master: "218.75 USDT" when the
// metadata names its symbol and decimals; else the raw amount and the
// master honestly ("218750000 raw units of jetton 0:B113...21DFE").
func (w *Words) Jetton(master Address, amount BigInt) string {
	n := string(amount)
	if n == "" {
		n = "an unknown amount"
	}
	if master == "" {
		return n + " raw units of an unknown jetton"
	}
	if md := w.token(master); md != nil && md.Symbol != nil && *md.Symbol != "" && md.Decimals != nil {
		if amount == "" {
			return "an unknown amount of " + *md.Symbol
		}
		return decimalString(n, *md.Decimals) + " " + *md.Symbol
	}
	return n + " raw units of jetton " + w.Account(master)
}

// Asset says an amount of a pool's asset, where no master means TON (the
// convention of swaps and liquidity values).
func (w *Words) Asset(master Address, amount BigInt) string {
	if master == "" {
		return w.TON(amount)
	}
	return w.Jetton(master, amount)
}

// JettonName is a jetton's symbol, or its master address.
func (w *Words) JettonName(master Address) string {
	if master == "" {
		return "an unknown jetton"
	}
	if md := w.token(master); md != nil && md.Symbol != nil && *md.Symbol != "" {
		return *md.Symbol
	}
	return "jetton " + w.Account(master)
}

// AssetName is an asset's name where no master means TON.
func (w *Words) AssetName(master Address) string {
	if master == "" {
		return "TON"
	}
	return w.JettonName(master)
}

// NFT names an item: "NFT \"name\"" when the metadata has its name, else
// by address; with its collection's name when known.
func (w *Words) NFT(item, collection Address) string {
	var s string
	if md := w.token(item); md != nil && md.Name != nil && *md.Name != "" {
		s = "NFT " + strconv.Quote(*md.Name)
	} else if item == "" {
		s = "an NFT"
	} else {
		s = "NFT " + w.Account(item)
	}
	if md := w.token(collection); md != nil && md.Name != nil && *md.Name != "" {
		s += " of " + strconv.Quote(*md.Name)
	}
	return s
}

// Opcode says an op code, or that there was none.
func (w *Words) Opcode(op Text) string {
	if op == "" {
		return "no op code"
	}
	return "op " + string(op)
}

// Dex names a DEX by its usual name.
func (w *Words) Dex(dex Text) string {
	if name, ok := dexNames[string(dex)]; ok {
		return name
	}
	if dex == "" {
		return "a DEX"
	}
	return string(dex)
}

var dexNames = map[string]string{
	"stonfi": "STON.fi", "stonfi_v2": "STON.fi", "dedust": "DeDust", "coffee": "swap.coffee",
	"tonco": "TONCO", "megaton": "Megaton Finance", "bidask": "Bidask", "mooncx": "MoonCX",
}

// Quote says a comment or name in quotes, cut to 64 characters so a
// sentence stays a sentence.
func (w *Words) Quote(s Text) string {
	r := []rune(string(s))
	if len(r) > 64 {
		return strconv.Quote(string(r[:63]) + "…")
	}
	return strconv.Quote(string(s))
}

// with appends " with <what>" parts that are present: a template's
// optional tail ("with comment \"hi\"").
func with(s string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return s
	}
	if len(kept) == 1 {
		return s + " with " + kept[0]
	}
	return s + " with " + strings.Join(kept[:len(kept)-1], ", ") + " and " + kept[len(kept)-1]
}

// if1 is s when cond, else "": an optional part of a sentence.
func if1(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// comment says a (possibly encrypted) comment as an optional part.
func (w *Words) comment(c Text, encrypted *bool) string {
	switch {
	case encrypted != nil && *encrypted:
		return "an encrypted comment"
	case c != "":
		return "comment " + w.Quote(c)
	}
	return ""
}

func (w *Words) token(a Address) *chain.TokenMetadata {
	if a == "" || w.names.Metadata == nil {
		return nil
	}
	return w.names.Metadata[string(a)]
}

// decimalString writes an integer amount with decimals places, trailing
// zeros dropped: ("218750000", 6) -> "218.75". A string that is not an
// integer is returned as it is.
func decimalString(n string, decimals int) string {
	v, ok := new(big.Int).SetString(n, 10)
	if !ok || decimals <= 0 {
		return n
	}
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ExampleValue is a value of t with every field filled with a plausible
// demo value (the addresses of ExampleNames, 1.5 units of each amount):
// what docs/ACTIONS.md shows a type's template with, and what the tests
// run every template on.
func ExampleValue(t Type) any {
	v := reflect.New(reflect.TypeOf(t.Value))
	fillExample(v.Elem(), "")
	return v.Interface()
}

// Example addresses: a person with a domain, another, a contract, a token.
const (
	ExampleAlice  = "0:A11CE00000000000000000000000000000000000000000000000000000000001"
	ExampleBob    = "0:B0B0000000000000000000000000000000000000000000000000000000000002"
	ExampleCall   = "0:C0C0000000000000000000000000000000000000000000000000000000000003"
	ExampleJetton = "0:E7E7000000000000000000000000000000000000000000000000000000000004"
)

// ExampleNames names the example addresses: alice.ton, and a jetton
// USDT with 6 decimals.
func ExampleNames() Names {
	alice, six, usdt, name := "alice.ton", 6, "USDT", "Tether USD"
	return Names{
		Book:     chain.AddressBook{ExampleAlice: {Address: ExampleAlice, Domain: &alice}},
		Metadata: chain.Metadata{ExampleJetton: {Address: ExampleJetton, Kind: chain.TokenJettonMaster, Symbol: &usdt, Name: &name, Decimals: &six}},
	}
}

var exampleTexts = map[string]Text{
	"opcode": "0x01f3835d", "dex": "stonfi", "comment": "thanks", "payout_comment": "thanks",
	"domain": "alice.ton", "provider": "tonstakers", "marketplace_name": "getgems", "amm": "volatile",
	"auction_type": "dns", "payout_type": "worker", "status": "succeeded", "category": "wallet",
	"key": "wallet", "value_schema": "dns_smc_address", "bitcoin_tx_id": "3f5c0e2a", "version": "v3r3",
}

func fillExample(v reflect.Value, name string) {
	switch v.Type() {
	case reflect.TypeOf(Address("")):
		addr := ExampleBob
		switch {
		case strings.Contains(name, "sender") || strings.Contains(name, "owner") || name == "buyer" ||
			name == "bidder" || name == "stake_holder" || name == "subscriber" || name == "creator" || name == "signer" ||
			name == "liquidator" || name == "deployer":
			addr = ExampleAlice
		case strings.Contains(name, "master") || strings.Contains(name, "asset") || strings.Contains(name, "minter") ||
			strings.Contains(name, "jetton") && !strings.Contains(name, "wallet"):
			addr = ExampleJetton
		case name == "recipient" || name == "seller" || name == "destination" || name == "new_bidder" || name == "beneficiary":
			addr = ExampleBob
		case name != "":
			addr = ExampleCall
		}
		v.SetString(addr)
		return
	case reflect.TypeOf(BigInt("")):
		v.SetString("1500000000")
		if strings.Contains(name, "index") || name == "query_id" || strings.Contains(name, "seqno") || name == "nonce" {
			v.SetString("7")
		}
		return
	case reflect.TypeOf(Text("")):
		if s, ok := exampleTexts[name]; ok {
			v.SetString(string(s))
		} else {
			v.SetString("0x5f0ec1b2")
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fillExample(v.Field(i), json)
		}
	case reflect.Pointer:
		if name == "encrypted" || name == "payout_encrypted" || name == "not_credited" || name == "forced" || name == "force" || name == "is_refund" {
			return // the plain case reads best in an example
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillExample(v.Elem(), name)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillExample(v.Index(0), name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint32, reflect.Uint64:
		if v.CanInt() {
			v.SetInt(3)
		} else {
			v.SetUint(3)
		}
	case reflect.String:
		v.SetString("example")
	}
}

// and joins the parts present: "a", "a and b", "a, b and c".
func (w *Words) and(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	switch len(kept) {
	case 0:
		return "an unknown amount"
	case 1:
		return kept[0]
	}
	return strings.Join(kept[:len(kept)-1], ", ") + " and " + kept[len(kept)-1]
}

// on says where a marketplace sale happened, when the value names it.
func (w *Words) on(marketplace Text) string {
	if marketplace == "" {
		return ""
	}
	if name, ok := marketplaceNames[string(marketplace)]; ok {
		return " on " + name
	}
	return " on " + string(marketplace)
}

var marketplaceNames = map[string]string{"getgems": "Getgems", "fragment": "Fragment", "tonapi": "Tonkeeper"}

// item names what a DNS or auction action is about: the domain when the
// value has it, else the NFT.
func (w *Words) item(domain Text, nft, collection Address) string {
	if domain != "" {
		return string(domain)
	}
	return w.NFT(nft, collection)
}

// dnsRecord names a DNS record by its category, else its key.
func (w *Words) dnsRecord(category, key Text) string {
	switch {
	case category != "":
		return string(category)
	case key != "":
		return "key " + string(key)
	}
	return "a"
}

// extraCurrencies says extra currency amounts by id (their decimals are
// not known to the store).
func (w *Words) extraCurrencies(list []ExtraCurrency) string {
	parts := make([]string, 0, len(list))
	for _, c := range list {
		parts = append(parts, string(c.Amount)+" units of extra currency "+strconv.FormatUint(uint64(c.ID), 10))
	}
	if len(parts) == 0 {
		return "extra currencies"
	}
	return w.and(parts...)
}

var providerNames = map[string]string{"tonstakers": "Tonstakers", "nominator": "a nominator pool", "ethena": "Ethena"}

// provider names a staking provider.
func (w *Words) provider(p Text) string {
	if name, ok := providerNames[string(p)]; ok {
		return name
	}
	if p == "" {
		return "a staking pool"
	}
	return string(p)
}

// staked says a staking amount: Ethena's are jettons (of master when
// known), the others' TON.
func (w *Words) staked(provider Text, master Address, amount BigInt) string {
	if provider == "ethena" {
		return w.Jetton(master, amount)
	}
	return w.TON(amount)
}

// evaa says an EVAA amount: TON when the value says so, else the jetton.
func (w *Words) evaa(isTon *bool, master Address, amount BigInt) string {
	if isTon != nil && *isTon {
		return w.TON(amount)
	}
	return w.Jetton(master, amount)
}

// seqno says an order's number, when known: " #7".
func (w *Words) seqno(n BigInt) string {
	if n == "" {
		return ""
	}
	return " #" + string(n)
}

// packetPath says where a LayerZero packet goes: " from chain 30343 to
// chain 30101" (LayerZero endpoint ids).
func (w *Words) packetPath(p *LayerzeroPacket) string {
	if p == nil || (p.SrcEid == 0 && p.DstEid == 0) {
		return ""
	}
	s := ""
	if p.SrcEid != 0 {
		s += " from chain " + strconv.FormatUint(uint64(p.SrcEid), 10)
	}
	if p.DstEid != 0 {
		s += " to chain " + strconv.FormatUint(uint64(p.DstEid), 10)
	}
	return s
}

// btcTx names the Bitcoin transaction of a peg-in, when known.
func (w *Words) btcTx(id Text) string {
	if id == "" {
		return ""
	}
	return " for Bitcoin transaction " + string(id)
}

// count says n things: "1 account", "3 accounts".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// or is the amount, or alt when unknown.
func (b BigInt) or(alt string) string {
	if b == "" {
		return alt
	}
	return string(b)
}
