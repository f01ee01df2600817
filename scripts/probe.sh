#!/usr/bin/env bash
# Replays issue 16's and issue 29's attacks against a tonql binary built from REV (default:
# the work tree): SQLite in a temporary folder, one API key, the server's
# CPU per request from /proc. Prints the probe's table, then what the
# server logged (errors, panics, non-JSON lines, keys in clear text).
#
#   scripts/probe.sh            # this work tree
#   scripts/probe.sh 8ad2939    # an older revision, for "before" figures
#   ONLY=fragments scripts/probe.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
rev="${1:-}"
tmp="$(mktemp -d)"
pid=""
pgdir="" pgstop=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$pgstop" ] && sh -c "$pgstop" >/dev/null 2>&1
  rm -rf "$tmp" "$pgdir"
}
trap cleanup EXIT

if [ -n "$rev" ]; then
  mkdir "$tmp/src"
  git archive "$rev" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -o "$tmp/tonql" ./cmd/tonql)
else
  go build -o "$tmp/tonql" ./cmd/tonql
fi
export DATABASE_URL="sqlite:$tmp/tonql.db" LISTEN_ADDR="127.0.0.1:${PORT:-18080}" REQUEST_TIMEOUT="${REQUEST_TIMEOUT:-20s}"
# Issue 29's streams resume from the first stored action: store the block
# fixtures' 1,430 actions first (MAX_STREAMS_PER_ADDRESS=200 lets all 200
# keyless streams in, to see the per-stream bounds rather than the limit).
fixtures="${TON_FIXTURES:-../shared/fixtures}"
if [ -d "$fixtures/blocks" ]; then
  "$tmp/tonql" import "$fixtures"/blocks/*.bin >/dev/null
fi
key="$("$tmp/tonql" keys create --name probe --rate -1 | tail -1)"
key5="$("$tmp/tonql" keys create --name burst5 --rate 1 --burst 5 | tail -1)"
# Issue 29's include_transactions pages need data: every trace fixture and
# the fee-replay block, when the fixtures are there.
fx="${TON_FIXTURES:-../shared/fixtures}"
if [ -d "$fx/toncenter-traces/traces" ]; then
  "$tmp/tonql" import "$fx/fee-replay/tvm_replay_fat_block_66519406.json" "$fx/toncenter-traces/traces" >/dev/null 2>&1 || true
fi
"$tmp/tonql" serve >"$tmp/out.log" 2>"$tmp/err.log" &
pid=$!
for _ in $(seq 1 100); do curl -fs "http://$LISTEN_ADDR/healthz" >/dev/null && break; sleep 0.1; done

go run ./scripts/probe -url "http://$LISTEN_ADDR" -pid "$pid" -key "$key" -key5 "$key5" \
  -seed-loop "$DATABASE_URL" -only "${ONLY:-}"

# Issue 29's "Postgres stop under load" stops a database, so it runs on a
# private cluster of its own (initdb in the temporary folder, a free port),
# never on one other processes share; skipped without Postgres's binaries.
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)"
if [ -n "$pgbin" ] && [[ "Postgres stop under load" == *"${ONLY:-}"* ]]; then
  as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  # its own folder: the postgres user cannot enter $tmp (mode 700, ours)
  pgdir="$(mktemp -d)" pgport="${PGPORT_PROBE:-18433}"
  [ "$(id -u)" != 0 ] || chown postgres "$pgdir"
  as_pg "$pgbin/initdb" -D "$pgdir/data" -U postgres --auth=trust >/dev/null
  printf "port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n" "$pgport" "$pgdir" |
    as_pg sh -c "cat >> '$pgdir/data/postgresql.conf'"
  pgstart="$(printf '%q ' $([ "$(id -u)" = 0 ] && echo runuser -u postgres --) "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w start)"
  pgstop="$(printf '%q ' $([ "$(id -u)" = 0 ] && echo runuser -u postgres --) "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop)"
  sh -c "$pgstart" >/dev/null
  kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  export DATABASE_URL="postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable" REDIS_URL=""
  [ -d "$fixtures/blocks" ] && "$tmp/tonql" import "$fixtures"/blocks/*.bin >/dev/null
  pgkey="$("$tmp/tonql" keys create --name pgstop --rate -1 | tail -1)"
  "$tmp/tonql" serve >"$tmp/pg-out.log" 2>"$tmp/pg-err.log" &
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://$LISTEN_ADDR/healthz" >/dev/null && break; sleep 0.1; done
  out="$(go run ./scripts/probe -url "http://$LISTEN_ADDR" -pid "$pid" -key "$pgkey" -key5 "$pgkey" \
    -only "Postgres stop under load" -pg-stop "$pgstop" -pg-start "$pgstart")"
  printf '%s\n' "$out" | tail -n +2
  kill "$pid" && wait "$pid" || true # a graceful stop stores the last units
  pid=""
  units="$("$tmp/tonql" keys usage "$pgkey" | tail -1)"
  echo "units stored for the key: $units (answers not 5xx: $(grep -o 'chargeable=[0-9]*' <<<"$out" | cut -d= -f2));" \
    "server log: $(grep -c '"level":"ERROR"' "$tmp/pg-err.log" || true) ERROR lines, $(grep -c '"msg":"panic' "$tmp/pg-err.log" || true) panics"
  grep '"level":"ERROR"' "$tmp/pg-err.log" | head -3 | cut -c1-600 || true
fi

echo
echo "server log: $(grep -c '"level":"ERROR"' "$tmp/err.log" || true) ERROR lines," \
  "$(grep -c '"level":"WARN"' "$tmp/err.log" || true) WARN lines," \
  "$(grep -c '"msg":"panic' "$tmp/err.log" || true) panics," \
  "$(grep -vc '^{' "$tmp/err.log" || true) non-JSON lines," \
  "$(grep -c "$key" "$tmp/err.log" || true) lines with the key in clear"
