#!/usr/bin/env python3
"""Checks a running tonql's toncenter v3 answers against toncenter's own Go models, route by route,
with ../shared/tools/tcshape.py (TCSHAPE: its path). The values asked for (accounts, hashes, blocks,
jettons, traces) are taken from the server's own answers, so any store works; the imported fixtures
exercise the most (`tonql import ../shared/fixtures/blocks/*.bin ../shared/fixtures/fee-replay/*.json
../shared/fixtures/toncenter-traces/traces/`).

  TC_MODELS=<ton-indexer snapshot>/ton-index-go/index/models scripts/tcshape-sweep.py http://127.0.0.1:8080

Point TC_MODELS at ton-index-go's models alone: ton-emulate-go has another struct named AccountState.
Prints one line per request (OK, BAD with the first problems, or the HTTP error) and exits 1 when any
answer differs. The project's tests keep their own field lists; this is the outside check.
"""
import json, os, sys, urllib.error, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.environ.get("TCSHAPE") or os.path.join(HERE, "..", "..", "shared", "tools", "tcshape.py")))
import tcshape  # noqa: E402

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
failures = 0


def ask(path, params=None, body=None):
    url = BASE + path + ("?" + urllib.parse.urlencode(params, doseq=True) if params else "")
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")[:200]


def check(path, params, model, body=None, many=False, missing_ok=False):
    """Asks path and checks the answer (each element when many) against model."""
    global failures
    status, doc = ask(path, params, body)
    if status != 200:
        if not (missing_ok and status == 404):
            failures += 1
        print(f"HTTP {status} {path} {params or ''}: {doc}")
        return None
    found = []
    for d in doc if many else [doc]:
        found += tcshape.problems(d, model)
    print(f"{'BAD' if found else 'OK '} {path} {params or ''} -> {model}")
    for p in found[:10]:
        print("     ", p)
    failures += bool(found)
    return doc


txs = check("/api/v3/transactions", {"limit": 50, "sort": "desc"}, "TransactionsResponse")
if not txs or not txs["transactions"]:
    sys.exit("the store holds no transactions: import some first")
accounts = sorted({t["account"] for t in txs["transactions"]})
acc, tx = accounts[0], txs["transactions"][0]
check("/api/v3/transactions", {"account": acc, "limit": 5}, "TransactionsResponse")
check("/api/v3/transactions", {"hash": tx["hash"]}, "TransactionsResponse")
check("/api/v3/transactions", {"start_utime": 1, "end_utime": 4000000000, "limit": 3, "offset": 2, "sort": "asc"}, "TransactionsResponse")
check("/api/v3/adjacentTransactions", {"hash": tx["hash"]}, "TransactionsResponse", missing_ok=True)
if tx.get("in_msg"):
    h = tx["in_msg"]["hash"]
    check("/api/v3/transactionsByMessage", {"msg_hash": h}, "TransactionsResponse")
    check("/api/v3/messages", {"msg_hash": h}, "MessagesResponse")
check("/api/v3/messages", {"destination": acc, "limit": 5}, "MessagesResponse")
check("/api/v3/messages", {"direction": "out", "limit": 5}, "MessagesResponse")
# The masterchain's: a shard block imported without the masterchain block that commits it has
# masterchain_block_ref null, a documented difference (docs/API-NOTES.md, Blocks).
blocks = check("/api/v3/blocks", {"workchain": -1, "limit": 5}, "BlocksResponse")
check("/api/v3/masterchainInfo", None, "MasterchainInfo", missing_ok=True)
if blocks and blocks["blocks"]:
    seqno = blocks["blocks"][0]["seqno"]
    check("/api/v3/masterchainBlockShardState", {"seqno": seqno}, "BlocksResponse")
    check("/api/v3/masterchainBlockShards", {"seqno": seqno}, "BlocksResponse")
    check("/api/v3/transactionsByMasterchainBlock", {"seqno": seqno}, "TransactionsResponse")
check("/api/v3/accountStates", {"address": accounts[:5]}, "AccountStatesResponse")
check("/api/v3/walletStates", {"address": accounts[:5]}, "WalletStatesResponse")
check("/api/v3/addressInformation", {"address": acc}, "V2AddressInformation", missing_ok=True)
check("/api/v3/walletInformation", {"address": acc}, "V2WalletInformation", missing_ok=True)
masters = check("/api/v3/jetton/masters", {"limit": 10}, "JettonMastersResponse")
wallets = check("/api/v3/jetton/wallets", {"limit": 10}, "JettonWalletsResponse")
if wallets and wallets["jetton_wallets"]:
    w = wallets["jetton_wallets"][0]
    check("/api/v3/jetton/wallets", {"owner_address": w["owner"], "exclude_zero_balance": "true"}, "JettonWalletsResponse")
    check("/api/v3/jetton/transfers", {"owner_address": w["owner"]}, "JettonTransfersResponse")
check("/api/v3/jetton/transfers", {"limit": 10}, "JettonTransfersResponse")
check("/api/v3/jetton/burns", {"limit": 10}, "JettonBurnsResponse")
check("/api/v3/nft/collections", {"limit": 10}, "NFTCollectionsResponse")
check("/api/v3/nft/items", {"limit": 10}, "NFTItemsResponse")
check("/api/v3/nft/transfers", {"limit": 10}, "NFTTransfersResponse")
check("/api/v3/nft/sales", {"address": acc}, "NFTSalesResponse")
traces = check("/api/v3/traces", {"limit": 5}, "TracesResponse")
check("/api/v3/traces", {"account": acc, "limit": 5}, "TracesResponse")
check("/api/v3/events", {"limit": 3}, "DeprecatedEventsResponse")
if traces and traces["traces"]:
    check("/api/v3/traces", {"trace_id": traces["traces"][0]["trace_id"]}, "TracesResponse")
check("/toncenter/api/v3/actions", {"limit": 10}, "ActionsResponse")
check("/api/v3/dns/records", {"wallet": acc}, "DNSRecordsResponse")
check("/api/v3/multisig/wallets", {"address": acc}, "MultisigResponse")
check("/api/v3/multisig/orders", {"multisig_address": acc, "parse_actions": "true"}, "MultisigOrderResponse")
check("/api/v3/vesting", {"contract_address": acc}, "VestingContractsResponse")
check("/api/v3/topAccountsByBalance", {"limit": 5}, "AccountBalance", many=True)
check("/api/v3/decode", {"opcodes": ["0x0f8a7ea5", "0x7362d09c"]}, "DecodeResponse")
check("/api/v3/runGetMethod", None, "V2RunGetMethodResult", body={"address": acc, "method": "seqno", "stack": []})
print(f"{failures} requests differ from toncenter's models")
sys.exit(1 if failures else 0)
