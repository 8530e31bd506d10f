#!/usr/bin/env bash
# bench/proxy.sh: what `covenant proxy` costs a client, against the reference answering direct.
#
# Run by hand from the repository root (never part of the test command):
#     bench/proxy.sh                   # 10 s per measure
#     SECONDS_EACH=5 bench/proxy.sh
#
# What it does:
#   1. builds covenant in release and starts a fresh reference (`covenant serve --port 0`);
#   2. starts `covenant proxy --profile P --listen 127.0.0.1:0` in front of it (its console lines
#      go to a file: bench/mix.lua's refused create receivable is a client's slip, one line each);
#   3. measures with wrk, cycling bench/mix.lua's requests (get VAT ID, list events, list
#      transactions, a create receivable refused 422), each measure direct and through the proxy:
#        - one client, one request at a time (-t1 -c1): the median latency of an exchange, and
#          the difference, what the proxy adds to one exchange at the median;
#        - 8 clients in flight (-t2 -c8): requests per second, and the proxy's share of the
#          reference's own rate; once against the reference on this machine, once against one
#          2 ms away (`serve --latency-ms 2`, a target across a network, whose own rate the proxy
#          must hold);
#   4. stops the proxy with SIGINT after the measures on this machine and reads its report: exchanges judged, and those passed on
#      unjudged because the judge was behind.
# The machine's 2 cores are shared by wrk, the reference and the proxy: through the proxy, every
# exchange is two HTTP exchanges on the same cores, and the judge's work is on them too.
# Needs: cargo, python3, curl, wrk (Debian `wrk`).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${SECONDS_EACH:-10}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release/covenant"

# shellcheck source=bench/reference.sh
source "$ROOT/bench/reference.sh"
bench_work proxy
bench_stop_more() { stop_proxy; }

need cargo "install Rust"
need python3 "apt-get install -y python3"
need curl "apt-get install -y curl"
need wrk "apt-get install -y wrk"

echo "== building covenant (release)" >&2
(cd "$ROOT" && cargo build --release --quiet)

# A fresh reference (arguments passed to `covenant serve`), a VAT ID to read, and the proxy in
# front of it: sets DIRECT and PROXIED.
start_both() {
    stop_proxy
    start_server "$@"
    export_credentials
    DIRECT="$(profile "$PROFILE" base_url)"
    export VAT_ID
    VAT_ID=$(curl -sS --max-time 10 -X POST "$DIRECT/finops/v1/counterparts/$COUNTERPART/vat-ids" \
        -H "Authorization: Bearer $FIN_TOKEN" -H "x-finops-version: $FIN_VERSION" \
        -H "x-organization-id: $FIN_ORG" -H 'content-type: application/json' \
        -d '{"value":"DE123456789","country":"DE","type":"eu_vat"}' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    start_proxy
}

# "requests_per_s median_ms" of one wrk measure: $1 URL, $2 threads, $3 connections.
measure() {
    timeout 120 wrk -t"$2" -c"$3" -d"${SECONDS_EACH}s" --latency -s "$ROOT/bench/mix.lua" "$1" \
        >"$WORK/wrk.out"
    python3 -c 'import re, sys
t = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
v, unit = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\b", t, re.M).groups()
ms = float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
print(f"{rps:.0f} {ms:.3f}")' "$WORK/wrk.out"
}

start_both
echo "== one client, one request at a time (wrk -t1 -c1, ${SECONDS_EACH}s each)" >&2
read -r direct1_rps direct1_ms < <(measure "$DIRECT" 1 1)
read -r proxied1_rps proxied1_ms < <(measure "$PROXIED" 1 1)
echo "== 8 clients in flight (wrk -t2 -c8, ${SECONDS_EACH}s each)" >&2
read -r direct8_rps direct8_ms < <(measure "$DIRECT" 2 8)
read -r proxied8_rps proxied8_ms < <(measure "$PROXIED" 2 8)
stop_proxy
cp "$WORK/reports/report.json" "$WORK/judged.json"
echo "== 8 clients in flight to a target 2 ms away (serve --latency-ms 2)" >&2
start_both --latency-ms 2
echo "== one client to a target 2 ms away (wrk -t1 -c1)" >&2
read -r _ remote1_direct_ms < <(measure "$DIRECT" 1 1)
read -r _ remote1_proxied_ms < <(measure "$PROXIED" 1 1)
read -r remote_direct_rps _ < <(measure "$DIRECT" 2 8)
read -r remote_proxied_rps _ < <(measure "$PROXIED" 2 8)
stop_proxy

python3 - "$WORK/judged.json" "$direct1_ms" "$proxied1_ms" "$direct1_rps" "$proxied1_rps" \
    "$direct8_rps" "$proxied8_rps" "$direct8_ms" "$proxied8_ms" "$remote_direct_rps" \
    "$remote_proxied_rps" "$remote1_direct_ms" "$remote1_proxied_ms" <<'PY' | tee "$OUT/proxy.json"
import json, sys
report = json.load(open(sys.argv[1]))
d1, p1, d1r, p1r, d8, p8, d8ms, p8ms, rd, rp, r1d, r1p = map(float, sys.argv[2:])
judged = sum(c["requests"] for c in report["cases"] if c["suite"] == "traffic" and c.get("operation"))
unjudged = sum(c["requests"] for c in report["cases"] if c["id"] == "traffic.unjudged")
print(json.dumps({
    "one_client": {"direct_median_ms": d1, "proxied_median_ms": p1,
                   "added_median_ms": round(p1 - d1, 3), "direct_rps": d1r, "proxied_rps": p1r},
    "eight_clients": {"direct_rps": d8, "proxied_rps": p8, "share": round(p8 / d8, 3),
                      "direct_median_ms": d8ms, "proxied_median_ms": p8ms},
    "one_client_target_2ms_away": {"direct_median_ms": r1d, "proxied_median_ms": r1p,
                                   "added_median_ms": round(r1p - r1d, 3)},
    "eight_clients_target_2ms_away": {"direct_rps": rd, "proxied_rps": rp, "share": round(rp / rd, 3)},
    "judged": judged, "unjudged": unjudged, "verdict": report.get("verdict"),
}, indent=2))
PY
