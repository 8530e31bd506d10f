#!/usr/bin/env bash
# bench/pace.sh: covenant against a remote target and a rate-limited one, played by the reference
# (`covenant serve --latency-ms N`, `--rate-limit REQ_PER_S`; issue 20).
#
# Run by hand from the repository root (never part of the test command):
#     bench/pace.sh                          # latency 20 50 100 ms; limits 100 150 req/s
#     LATENCIES="50" LIMITS="100" REPEAT=1 bench/pace.sh
#
# What it does, each run against a FRESH reference (a run consumes fixtures such as deletable
# tags) with `covenant run --profile P --seed 1 -q`:
#   1. latency: for each N in $LATENCIES, the default run (`--cases 25`, `--concurrency 8`)
#      against `serve --latency-ms N`. Its bound is what `--concurrency` allows: requests x
#      latency / requests in flight. The table gives the run's own time (report.json
#      meta.duration_ms: the cases, from the first request to the last) and the process's wall
#      time (probe, OAuth token, preflight and reports included), each against the bound. The
#      fastest of $REPEAT runs is kept.
#   2. rate limit: for each L in $LIMITS, against `serve --rate-limit L` (a token bucket with a
#      burst of 0.2 s), the default run, a long run (`--cases $LONG_CASES`), and the default run
#      again with the `--rate` the first one reported as the pace that worked. Requests per
#      second are the answers that came through (requests minus refusals) over the run's own
#      time, against the limit.
# Output: two tables on stdout and bench/out/pace.json (bench/out is gitignored).
# Needs: cargo, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LATENCIES="${LATENCIES:-20 50 100}"
LIMITS="${LIMITS:-100 150}"
LONG_CASES="${LONG_CASES:-500}"
REPEAT="${REPEAT:-3}"
CONCURRENCY=8
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release/covenant"

# shellcheck source=bench/reference.sh
source "$ROOT/bench/reference.sh"
bench_work pace

need cargo "install Rust"
need python3 "apt-get install -y python3"


# Runs covenant against the server; appends one JSON line to $WORK/results.jsonl.
measure() { # kind knob [covenant run flags...]
    local kind=$1 knob=$2
    shift 2
    local reports="$WORK/reports"
    rm -rf "$reports" "$WORK/state.json"
    local start end code=0
    start=$(date +%s.%N)
    COVENANT_STATE="$WORK/state.json" "$BIN" run --profile "$PROFILE" --seed 1 -q \
        --concurrency "$CONCURRENCY" --report-dir "$reports" "$@" >"$WORK/run.log" 2>&1 || code=$?
    end=$(date +%s.%N)
    python3 - "$reports/report.json" "$kind" "$knob" "$start" "$end" "$code" "$*" \
        >>"$WORK/results.jsonl" <<'PY'
import json, sys
path, kind, knob, start, end, code, flags = sys.argv[1:8]
r = json.load(open(path))
pace = r["meta"].get("pace") or {}
refused = pace.get("answers_429", 0) + pace.get("answers_503", 0)
print(json.dumps({
    "kind": kind, "knob": float(knob), "flags": flags, "exit": int(code),
    "cases": r["counts"]["pass"], "requests": r["counts"]["requests"], "refused": refused,
    "run_s": r["meta"]["duration_ms"] / 1000, "wall_s": float(end) - float(start),
    "pauses": pace.get("pauses", 0), "paused_s": pace.get("paused_ms", 0) / 1000,
    "pace": pace.get("rate"),
}))
PY
}

# The pace the last measured run reported, as the --rate to pass.
last_pace() { python3 -c 'import json, math, sys
row = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(math.floor(row["pace"]) if row["pace"] else "")' "$WORK/results.jsonl"; }

echo "building covenant (release)..." >&2
(cd "$ROOT" && cargo build --release --quiet)

for latency in $LATENCIES; do
    for _ in $(seq "$REPEAT"); do
        echo "latency $latency ms..." >&2
        start_server --latency-ms "$latency"
        measure latency "$latency"
    done
done
for limit in $LIMITS; do
    echo "rate limit $limit req/s: default run, long run, default run at the pace reported..." >&2
    start_server --rate-limit "$limit"
    measure limit "$limit"
    rate=$(last_pace)
    start_server --rate-limit "$limit"
    measure limit "$limit" --cases "$LONG_CASES"
    if [[ -n "$rate" ]]; then
        start_server --rate-limit "$limit"
        measure limit "$limit" --rate "$rate"
    fi
done
stop_server

python3 - "$WORK/results.jsonl" "$OUT/pace.json" "$CONCURRENCY" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
concurrency = int(sys.argv[3])
json.dump(rows, open(sys.argv[2], "w"), indent=1)
print("\n| latency ms | requests | bound s | run s | run / bound | wall s | wall / bound | exit |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
best = {}
for r in rows:
    if r["kind"] == "latency" and (r["knob"] not in best or r["run_s"] < best[r["knob"]]["run_s"]):
        best[r["knob"]] = r
for knob, r in sorted(best.items()):
    bound = r["requests"] * knob / 1000 / concurrency
    print(f"| {knob:.0f} | {r['requests']} | {bound:.2f} | {r['run_s']:.2f} | {r['run_s'] / bound:.2f} "
          f"| {r['wall_s']:.2f} | {r['wall_s'] / bound:.2f} | {r['exit']} |")
print("\n| limit req/s | run | requests | refused | pauses | paused s | run s | answered req/s | of the limit | pace reported | exit |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    if r["kind"] != "limit":
        continue
    answered = (r["requests"] - r["refused"]) / r["run_s"]
    pace = f"{r['pace']:.1f}" if r["pace"] else ""
    print(f"| {r['knob']:.0f} | `{r['flags'] or 'default'}` | {r['requests']} | {r['refused']} | {r['pauses']} "
          f"| {r['paused_s']:.1f} | {r['run_s']:.2f} | {answered:.1f} | {answered / r['knob']:.0%} | {pace} | {r['exit']} |")
PY
