#!/usr/bin/env bash
# Sets tonql's throughput and latency beside the database's own (issue 17;
# docs/PERFORMANCE.md): for each measured page, wrk against the server and
# pgbench on the same page's SQL (written by `loadgen -pgbench`), at 4 and
# 16 connections, plus the server's CPU per request. Two pgbench figures:
# "pg tps" runs the statements a request sent before the one-statement page
# (page, then address book; simple protocol, as the server sent them), the
# issue's baseline; "now tps" runs what the server sends now for a page it
# serves again (keys, then rows; the address book from its cache), prepared
# (the database's own speed on the server's work).
#
#   go run ./cmd/loadgen -database-url "$DATABASE_URL" -actions 1000000   # once
#   DATABASE_URL=... tonql serve -rate-limit 0 & SERVER_PID=$!
#   DATABASE_URL=... SERVER_PID=... scripts/perf-vs-pgbench.sh http://127.0.0.1:8080
#
# The token routes instead (issue 30): fill the registry, then name an owner:
#   go run ./cmd/loadgen -database-url "$DATABASE_URL" -tokens 1000000   # prints an owner
#   TOKEN_OWNER=0:... DATABASE_URL=... SERVER_PID=... scripts/perf-vs-pgbench.sh http://127.0.0.1:8080
# Transactions, messages and traces (issue 31): CHAIN_ACCOUNT=<a hot account> (MSG_HASH optional).
# A year of 1h candles (issue 34): load with -swap-weight 11 -seconds 31536000, run
# `tonql analytics rebuild`, then CANDLES_TOKEN=<a jetton master> (CANDLES_TO optional).
# p99x is tonql's p99 / pgbench's.
#
# Those runs are closed loops: each side sends as fast as it is answered, so
# each is measured at its own saturation, and on a machine where the client,
# the server and Postgres share the cores the server's extra CPU is counted
# twice (in its own work and in the queue it makes). RATES="500 1000" adds
# open-loop runs at those fixed mean request rates, the same for both
# sides: `loadgen -open-loop` against the server and `pgbench -R` on the
# same SQL, both with Poisson arrivals and each latency counted from when
# the request was due (pgbench's schedule lag added), so a stall is not
# hidden by the client waiting for it; loadgen leaves out only its own
# timer's lateness (Go's sleeps wake up to a millisecond late). pgbench
# there opens RATE_CLIENTS connections (default 4): give it the server's
# DATABASE_MAX_CONNS, so both sides keep the same number of backends (on
# this 2-core machine, 16 mostly idle backends alone put pgbench's p99 at
# 250/s 25x above 4 backends').
# CONNS="" runs only those.
set -euo pipefail
base=${1:?base URL of a running tonql serve}
db=${DATABASE_URL:?the server database}
pid=${SERVER_PID:-}
dur=${DURATION:-15}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pgurl=${db%%\?*}
# LOADGEN: a loadgen binary built beforehand; `go run` links it again for
# every capture, which on a busy machine takes longer than the runs.
loadgen() { if [ -n "${LOADGEN:-}" ]; then "$LOADGEN" "$@"; else (cd "$here/.." && go run ./cmd/loadgen "$@"); fi; }
# capture NAME PATH: NAME.sql is what the server sent for PATH served a
# second time (loadgen -capture). Values are written in (pgbench's simple
# protocol: its prepared mode takes the ":B0..." inside a raw address
# literal for a variable), unless the server sent every statement prepared
# (the registry's keyed lists): then NAME.sql.args holds their values and
# pgbench_run replays them prepared, as the server runs them.
capture() {
  loadgen -database-url "$db" -capture "$2" -capture-out "$dir/$1.sql" 2>/dev/null
  echo "$1 $2" >> "$dir/pages"
}
urlenc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
captured=${TOKEN_OWNER:-}${CHAIN_ACCOUNT:-}${CANDLES_TOKEN:-}
if [ -n "${TOKEN_OWNER:-}" ]; then
  # Issue 30's token routes (the registry filled by `loadgen -tokens N`):
  # one owner's jetton wallets and NFT items.
  for route in jetton/wallets nft/items; do
    capture "${route/\//-}" "/api/v3/$route?owner_address=$TOKEN_OWNER&limit=10"
  done
elif [ -n "${CHAIN_ACCOUNT:-}" ]; then
  # Issue 31's hot pages (loadgen writes each trace's transactions,
  # messages and trace row): an account's newest transactions and traces,
  # and one message by hash (MSG_HASH, else the newest the account took).
  msg=${MSG_HASH:-$(psql "$pgurl" -Atc "SELECT hash FROM messages WHERE destination = '$CHAIN_ACCOUNT' AND direction = 'in'
    AND source <> '' ORDER BY created_lt DESC LIMIT 1")}
  capture transactions "/api/v3/transactions?account=$CHAIN_ACCOUNT&limit=10"
  capture messages "/api/v3/messages?msg_hash=$(urlenc "$msg")&limit=10"
  capture traces "/api/v3/traces?account=$CHAIN_ACCOUNT&limit=10"
elif [ -n "${CANDLES_TOKEN:-}" ]; then
  # Issue 34: a year of one jetton's 1h candles (rollups made by
  # `tonql analytics rebuild` after a load with -swap-weight/-seconds),
  # the year before its newest trade unless CANDLES_TO is given.
  to=${CANDLES_TO:-$(psql "$pgurl" -Atc "SELECT max(utime) + 1 FROM analytics_trades WHERE jetton = '$CANDLES_TOKEN'")}
  capture candles "/api/v3/analytics/candles?token=$CANDLES_TOKEN&interval=1h&from=$((to - 365 * 86400))&to=$to"
else
  loadgen -database-url "$db" -pgbench "$dir" > "$dir/pages"
fi
hot=$(awk '$1=="hot"{print $2}' "$dir/pages" | sed 's/.*account=\([^&]*\).*/\1/; s/%3A/:/')
after=$(awk '$1=="hot-cursor"{sub("after=","",$2); print $2}' "$dir/pages")
cursor=$(printf '%s' "$after" | base64 -w0 | tr '+/' '-_' | tr -d '=')

# cpu_ticks: the server's user+system clock ticks so far (0 without SERVER_PID).
cpu_ticks() { if [ -n "$pid" ]; then awk '{print $14+$15}' "/proc/$pid/stat"; else echo 0; fi; }
# ms: a wrk latency ("850.00us", "1.23ms", "1.02s") in milliseconds.
ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) printf "%.2f", v/1000; else if (v ~ /ms$/) printf "%.2f", v+0; else printf "%.2f", v*1000 }'; }

# retrans: TCP segments the kernel has retransmitted so far. On loopback
# nothing is lost, yet with more busy processes than cores some segments
# go unacknowledged long enough to be sent again (200 ms and more each):
# a p99 far above p50 beside a count in the hundreds is the machine's.
retrans() { awk '/^Tcp:/ && !h {h=1; for (i=1;i<=NF;i++) if ($i=="RetransSegs") c=i; next} /^Tcp:/ {print $c}' /proc/net/snmp; }

wrk_run() { # conns, then wrk's arguments; prints "req/s p50 p99 cpu_ms_per_request retransmitted"
  local conns=$1; shift
  local t0 r0 out reqs
  t0=$(cpu_ticks); r0=$(retrans)
  out=$(wrk -t2 -c"$conns" -d"${dur}s" --latency "$@")
  reqs=$(awk '/requests in/{print $1}' <<<"$out")
  local cpu=$(( $(cpu_ticks) - t0 )) re=$(( $(retrans) - r0 ))
  printf '%s %s %s %s %s\n' "$(awk '/Requests\/sec/{printf "%.0f", $2}' <<<"$out")" \
    "$(ms "$(awk '$1=="50%"{print $2}' <<<"$out")")" "$(ms "$(awk '$1=="99%"{print $2}' <<<"$out")")" \
    "$(awk -v c="$cpu" -v r="$reqs" -v hz="$(getconf CLK_TCK)" 'BEGIN{ if (r>0 && c>0) printf "%.3f", c*1000/hz/r; else print "-" }')" "$re"
}

pgbench_run() { # conns, script[, protocol[, rate]]; prints "tps p50 p99"
  # With a rate (pgbench -R), each latency counts from the transaction's
  # scheduled start: its log's time plus the schedule lag (a 7th field the
  # log has only then).
  local conns=$1 script=$2 mode=${3:-simple} rate=${4:-}
  local defs=() d
  if [ -f "$script.args" ]; then
    mode=prepared
    while read -r d; do defs+=(-D "$d"); done < "$script.args"
  fi
  rm -f "$dir"/pgb.*
  local out
  out=$(cd "$dir" && pgbench -n -M "$mode" "${defs[@]}" -c "$conns" -j 2 ${rate:+-R "$rate"} -T "$dur" -f "$script" -l --log-prefix=pgb "$pgurl" 2>&1)
  local tps
  tps=$(awk '/^tps/{printf "%.0f", $3}' <<<"$out")
  cat "$dir"/pgb.* | awk '{print $3 + $7}' | sort -n | awk -v tps="$tps" '{a[NR]=$1} END{printf "%s %.2f %.2f\n", tps, a[int(NR*0.5)]/1000, a[int(NR*0.99)]/1000}'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; duration ${dur}s per run"
[ -z "${CONNS-4 16}" ] || printf '%-22s %5s | %8s %7s %7s %8s %7s | %8s %7s %7s | %5s %5s | %8s %5s\n' page conns "req/s" p50ms p99ms cpu_ms retrans "pg tps" p50ms p99ms ratio p99x "now tps" ratio
for conns in ${CONNS-4 16}; do
  while read -r name path; do
    case $name in
      hot-cursor)
        t=$(HOT="$hot" AFTER="$cursor" wrk_run "$conns" -s "$here/wrk-cursor.lua" "$base/graphql") ;;
      *)
        t=$(wrk_run "$conns" "$base$path") ;;
    esac
    p=$(pgbench_run "$conns" "$dir/$name.sql")
    n="- - -"
    [ ! -f "$dir/$name-now.sql" ] || n=$(pgbench_run "$conns" "$dir/$name-now.sql" prepared)
    read -r rps p50 p99 cpu re <<<"$t"
    read -r tps q50 q99 <<<"$p"
    read -r ntps _ _ <<<"$n"
    printf '%-22s %5s | %8s %7s %7s %8s %7s | %8s %7s %7s | %5s %5s | %8s %5s\n' "$name" "$conns" "$rps" "$p50" "$p99" "$cpu" "$re" "$tps" "$q50" "$q99" \
      "$(awk -v a="$rps" -v b="$tps" 'BEGIN{printf "%.2f", a/b}')" "$(awk -v a="$p99" -v b="$q99" 'BEGIN{if (b+0 > 0) printf "%.2f", a/b; else print "-"}')" "$ntps" "$(awk -v a="$rps" -v b="$ntps" 'BEGIN{if (b+0 > 0) printf "%.2f", a/b; else print "-"}')"
  done < "$dir/pages"
  [ -z "$captured" ] || continue
  t=$(HOT="$hot" wrk_run "$conns" -s "$here/wrk-graphql.lua" "$base/graphql")
  read -r rps p50 p99 cpu re <<<"$t"
  p=$(pgbench_run "$conns" "$dir/hot.sql")
  n=$(pgbench_run "$conns" "$dir/hot-now.sql" prepared)
  read -r tps q50 q99 <<<"$p"
  read -r ntps _ _ <<<"$n"
  printf '%-22s %5s | %8s %7s %7s %8s %7s | %8s %7s %7s | %5s %5s | %8s %5s\n' "hot (GraphQL)" "$conns" "$rps" "$p50" "$p99" "$cpu" "$re" "$tps" "$q50" "$q99" \
    "$(awk -v a="$rps" -v b="$tps" 'BEGIN{printf "%.2f", a/b}')" "$(awk -v a="$p99" -v b="$q99" 'BEGIN{printf "%.2f", a/b}')" "$ntps" "$(awk -v a="$rps" -v b="$ntps" 'BEGIN{printf "%.2f", a/b}')"
done
# GraphQL against REST on the hot page, the two alternated in short runs so
# that the machine's drift (the rows above are minutes apart) falls on
# both alike: the median of the pairs' ratios.
for conns in $([ -n "$captured" ] || echo "${CONNS-4 16}"); do
  ratios=""
  for _ in 1 2 3 4 5; do
    read -r r _ <<<"$(dur=4 wrk_run "$conns" "$base$(awk '$1=="hot"{print $2}' "$dir/pages")")"
    read -r g _ <<<"$(HOT="$hot" dur=4 wrk_run "$conns" -s "$here/wrk-graphql.lua" "$base/graphql")"
    ratios+="$(awk -v g="$g" -v r="$r" 'BEGIN{printf "%.2f", g/r}') "
  done
  echo "GraphQL/REST, hot page, $conns connections, five alternated 4 s pairs: $ratios-> median $(tr ' ' '\n' <<<"$ratios" | grep . | sort -n | sed -n 3p)"
done
# open_run rate path: "sent/s p50 p99 cpu_ms_per_request failed" of an
# open-loop run at rate requests a second.
open_run() {
  local t0 out sent p50 p99 failed n
  t0=$(cpu_ticks)
  out=$(loadgen -open-loop "$base$2" -rate "$1" -duration "${dur}s")
  local cpu=$(( $(cpu_ticks) - t0 ))
  read -r sent p50 p99 failed n <<<"$out"
  printf '%s %s %s %s %s\n' "$sent" "$p50" "$p99" \
    "$(awk -v c="$cpu" -v n="$n" -v hz="$(getconf CLK_TCK)" 'BEGIN{ if (n>0 && c>0) printf "%.3f", c*1000/hz/n; else print "-" }')" "$failed"
}
if [ -n "${RATES:-}" ]; then
  printf '%-22s %6s | %8s %7s %7s %8s %5s | %8s %7s %7s | %5s\n' page "rate" "sent/s" p50ms p99ms cpu_ms failed "pg tps" p50ms p99ms p99x
  for rate in $RATES; do
    while read -r name path; do
      [ "$name" != hot-cursor ] || continue # a GraphQL POST: wrk-cursor.lua only
      read -r rps p50 p99 cpu bad <<<"$(open_run "$rate" "$path")"
      read -r tps q50 q99 <<<"$(pgbench_run "${RATE_CLIENTS:-4}" "$dir/$name.sql" simple "$rate")"
      printf '%-22s %6s | %8s %7s %7s %8s %5s | %8s %7s %7s | %5s\n' "$name" "$rate" "$rps" "$p50" "$p99" "$cpu" "$bad" "$tps" "$q50" "$q99" \
        "$(awk -v a="$p99" -v b="$q99" 'BEGIN{if (b+0 > 0) printf "%.2f", a/b; else print "-"}')"
    done < "$dir/pages"
  done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
