#!/usr/bin/env bash
# Kills a private Redis with SIGKILL under keyed load and restarts it,
# against a tonql binary built from REV (default: the work tree), then
# compares the key's units with the requests the server answered 200 (its
# own request log) and counts what the outage logged. For the figures of
# docs/OPERATIONS.md ("What each fault costs").
#
#   scripts/fault-redis.sh [REV]     # DURATION=20 KILL_AT=5 RESTART_AT=12
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
rev="${1:-}" duration="${DURATION:-20}" kill_at="${KILL_AT:-5}" restart_at="${RESTART_AT:-12}"
tmp="$(mktemp -d)" pid="" rpid=""
rport="${REDIS_PORT:-16399}" port="${PORT:-18081}"
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$rpid" ] && kill -9 "$rpid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
redis() { redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --loglevel warning >/dev/null & rpid=$!; sleep 0.3; }

if [ -n "$rev" ]; then
  mkdir "$tmp/src" && git archive "$rev" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -o "$tmp/tonql" ./cmd/tonql)
else
  go build -o "$tmp/tonql" ./cmd/tonql
fi
export DATABASE_URL="sqlite:$tmp/tonql.db" LISTEN_ADDR="127.0.0.1:$port" REDIS_URL="redis://127.0.0.1:$rport/0"
redis
key="$("$tmp/tonql" keys create --name fault --rate -1 | tail -1)"
"$tmp/tonql" serve >"$tmp/out.log" 2>"$tmp/err.log" &
pid=$!
for _ in $(seq 1 100); do curl -fs "http://$LISTEN_ADDR/healthz" >/dev/null && break; sleep 0.1; done

wrk -t2 -c8 -d"${duration}s" "http://$LISTEN_ADDR/$key/api/v3/actions?limit=1" >"$tmp/wrk.txt" &
wpid=$!
sleep "$kill_at"; kill -9 "$rpid"; wait "$rpid" 2>/dev/null || true; rpid=""
sleep "$((restart_at - kill_at))"; redis
wait "$wpid"
kill -TERM "$pid"; wait "$pid" || true; pid=""

ok=$(grep '"msg":"request"' "$tmp/err.log" | grep '"key_id"' | grep -c '"status":200' || true)
failed=$(grep '"msg":"request"' "$tmp/err.log" | grep '"key_id"' | grep -vc '"status":200' || true)
units=$(REDIS_URL="" "$tmp/tonql" keys usage "$key" | tail -1 | awk '{print $2}')
echo "requests answered 200: $ok, answered otherwise: $failed, units: $units, lost: $((ok - units))"
echo "log during the run: $(grep -v '"msg":"request"' "$tmp/err.log" | grep -c '"level":"WARN"' || true) WARN lines," \
  "$(grep -c '"level":"ERROR"' "$tmp/err.log" || true) ERROR lines, $(grep -vc '^{' "$tmp/err.log" || true) non-JSON lines"
grep -v '"msg":"request"' "$tmp/err.log" | cut -c1-220 | sort | uniq -c | sort -rn | head -8
