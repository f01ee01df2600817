#!/usr/bin/env bash
# Load-tests, against a running server, the preview of a message against the
# estimate it extends (the same body: POST /api/v2/estimateFee, then POST
# /api/v3/emulate), and a wallet's seqno through JSON-RPC runGetMethod; prints
# wrk's latency distribution of each (docs/PERFORMANCE.md).
#
#   tonql import .../fee-replay/tvm_replay_fat_block_66519406.json
#   FEE_CLOCK=head RATE_LIMIT=0 tonql serve &
#   scripts/perf-wallet.sh http://127.0.0.1:8080 ADDRESS BODY_BASE64 WALLET
set -euo pipefail
base=${1:?base URL}
address=${2:?address of the message}
body=${3:?base64 body of the message}
wallet=${4:?a wallet to read the seqno of}
dur=${DURATION:-15s}
conns=${CONNECTIONS:-4}
threads=${THREADS:-2}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '{"address":"%s","body":"%s"}' "$address" "$body" >"$tmp/fee.json"
printf '{"jsonrpc":"2.0","id":1,"method":"runGetMethod","params":{"address":"%s","method":"seqno","stack":[]}}' "$wallet" >"$tmp/seqno.json"

run() {
  echo "== $1"
  shift
  wrk -t"$threads" -c"$conns" -d"$dur" --latency -s "$here/../server/testdata/estimate_fee.lua" "$@" | grep -E 'Latency|50%|90%|99%|Requests/sec|Non-2xx'
}

run "estimate (POST /api/v2/estimateFee)" "$base/api/v2/estimateFee" -- "$tmp/fee.json"
run "preview (POST /api/v3/emulate)" "$base/api/v3/emulate" -- "$tmp/fee.json"
run "runGetMethod seqno (JSON-RPC)" "$base/api/v2/jsonRPC" -- "$tmp/seqno.json"
