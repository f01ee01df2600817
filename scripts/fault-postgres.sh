#!/usr/bin/env bash
# Terminates every Postgres connection of a running tonql (as a restart of
# Postgres with no traffic during it would), then sends requests one at a
# time and counts how many fail before one succeeds. Binary built from REV
# (default: the work tree); DATABASE_URL must name a database of your own.
#
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/tonql_me?sslmode=disable scripts/fault-postgres.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
: "${DATABASE_URL:?set DATABASE_URL to a Postgres database of your own}"
rev="${1:-}" tmp="$(mktemp -d)" pid="" port="${PORT:-18082}"
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
if [ -n "$rev" ]; then
  mkdir "$tmp/src" && git archive "$rev" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -o "$tmp/tonql" ./cmd/tonql)
else
  go build -o "$tmp/tonql" ./cmd/tonql
fi
export LISTEN_ADDR="127.0.0.1:$port" REDIS_URL=""
key="$("$tmp/tonql" keys create --name pgfault --rate -1 | tail -1)"
"$tmp/tonql" serve >"$tmp/out.log" 2>"$tmp/err.log" &
pid=$!
for _ in $(seq 1 100); do curl -fs "http://$LISTEN_ADDR/healthz" >/dev/null && break; sleep 0.1; done
url="http://$LISTEN_ADDR/$key/api/v3/actions?limit=1"
wrk -t2 -c16 -d2s "$url" >/dev/null # fill the pool
db="$(psql "$DATABASE_URL" -Atc 'SELECT current_database()')"
killed="$(psql "$DATABASE_URL" -Atc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()")"
while [ "$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()")" != 0 ]; do sleep 0.1; done
codes=""
for _ in $(seq 1 ${REQUESTS:-20}); do codes="$codes $(curl -s -o /dev/null -w '%{http_code}' "$url")"; done
echo "connections killed: $killed; then$(echo $codes | tr ' ' '\n' | sort | uniq -c | awk '{printf " %dx%s", $1, $2}'); in order:$codes"
