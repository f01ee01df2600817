#!/usr/bin/env bash
# Load-tests the actions routes against a running server and prints wrk's
# latency distribution for each query (docs/PERFORMANCE.md).
#
#   go run ./cmd/loadgen -database-url "$DATABASE_URL"      # once: 1M actions
#   DATABASE_URL=... go run ./cmd/tonql serve &              # the server
#   scripts/perf-actions.sh http://127.0.0.1:8080 0:HOTACCOUNT...
set -euo pipefail
base=${1:?base URL}
hot=${2:?hot account, raw form}
dur=${DURATION:-20s}
conns=${CONNECTIONS:-16}
threads=${THREADS:-2}
here=$(cd "$(dirname "$0")" && pwd)

run() {
  echo "== $1"
  shift
  wrk -t"$threads" -c"$conns" -d"$dur" --latency "$@" | grep -E 'Latency|50%|90%|99%|Requests/sec|Non-2xx'
}

run "REST account=HOT limit=10 desc" "$base/api/v3/actions?account=$hot&limit=10"
run "REST account=HOT action_type=JettonTransfer" "$base/api/v3/actions?account=$hot&action_type=JettonTransfer&limit=10"
run "REST action_type=JettonSwap (no account)" "$base/api/v3/actions?action_type=JettonSwap&limit=10"
run "REST account=HOT offset=10000" "$base/api/v3/actions?account=$hot&limit=10&offset=10000"
run "REST no filter offset=10000" "$base/api/v3/actions?limit=10&offset=10000"
HOT="$hot" run "GraphQL account=HOT limit=10 (all fields + address_book)" -s "$here/wrk-graphql.lua" "$base/graphql"
