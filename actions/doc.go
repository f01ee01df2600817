// Package actions turns a trace (a tree of transactions) into human-level
// actions: an ordered list of matchers runs over the tree, each claiming the
// transactions of a pattern it recognizes (a jetton transfer, a swap, ...).
// What no matcher claims becomes a TonTransfer (a value transfer, maybe with
// a comment) or a SmartContractExec (a call with an op code).
//
// # Layout
//
// The core knows no protocol: classify.go (the run and the finished
// action), tree.go (the trace as nodes with decoded bodies), registry.go
// (declarations and matcher order), value.go (Address, BigInt, who takes
// part), payload.go (transfer payloads). Each protocol or family has one
// file with its value types, its matchers and an init function that
// declares them, and one test file: jettons.go, nft.go, swaps.go,
// liquidity*.go, ... Adding a protocol means adding such a file.
//
// # Declaring a type
//
// A type is a struct whose Go name is the type name (toncenter's
// snake_case name in CamelCase). Its fields carry:
//
//   - json:"name,omitempty": the field of the REST value (snake_case);
//     absent means unknown. Amounts, query ids and indexes are BigInt
//     (decimal strings), addresses are Address (raw upper-case "0:ABC...").
//   - role:"sender" (recipient, source, destination, master, contract;
//     default other) on Address fields: every Address in a value is a
//     participant, found by the account filter and named in the address book.
//   - doc:"...": one line for docs/ACTIONS.md and the GraphQL schema.
//   - tc:"field": the toncenter details field it carries, for the docs table.
//
// Then declare(Type{Value: X{}, Toncenter: "x", Protocols: ..., Doc: ...,
// Failed: ...}) and addMatcher(order, name, fn) from the file's init.
// cmd/actionsgen writes the GraphQL types (actions.graphqls) and the type
// table of docs/ACTIONS.md from the declarations; CI fails when they are
// stale.
//
// # Writing a matcher
//
// A matcher gets every unclaimed node in turn (pre-order) and returns
// whether it recognized a pattern starting there. It builds a draft with
// newDraft(&Value{...}, key, nodes...) (key: the hash of the message the
// action is about), sets draft.ok to false when the step that carries the
// meaning failed, and c.add(draft) claims the nodes. Match on op codes,
// message shapes and code hashes, never on one trace's ids or one wallet's
// address; a protocol's known contract addresses may be data, kept in its
// file with their source named.
package actions
