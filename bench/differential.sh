#!/usr/bin/env bash
# bench/differential.sh: the wall time of a differential run (two targets, one plan) against a
# single run, on local references.
#
# Run by hand from the repository root (never part of the test command):
#     bench/differential.sh            # 5 repetitions each, the fastest kept
#     REPEAT=9 CASES=100 bench/differential.sh
#
# Each repetition starts FRESH references (`covenant serve --port 0 --profile-out`: a run
# deletes fixtures) and a fresh state file, then times the whole process (start-up, reports):
#   single:        covenant run --profile A --seed 1 -q
#   differential:  covenant run --profile A --profile B --seed 1 -q
#   embedded:      covenant run --seed 1 -q (the default run: the reference in-process)
# The references run as their own processes, so `single` and `differential` differ only by the
# second target. The machine is shared and its speed drifts, so the kinds alternate within a
# repetition and the fastest of each is kept. Output: a table on stdout.
# Needs: cargo, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPEAT="${REPEAT:-5}"
CASES="${CASES:-25}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release/covenant"
WORK="$(mktemp -d)"
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
trap 'cleanup; rm -rf "$WORK"' EXIT

# serve NAME SEED: a fresh reference with fixtures of SEED, writing its profile to
# $WORK/NAME.toml (the two targets of a differential run get other seeds, hence other ids and
# credentials, as two real targets would)
serve() {
    rm -f "$WORK/$1.toml"
    "$BIN" serve --port 0 --seed "$2" --profile-out "$WORK/$1.toml" >/dev/null 2>&1 &
    PIDS+=("$!")
    for _ in $(seq 100); do
        [[ -s "$WORK/$1.toml" ]] && return 0
        sleep 0.05
    done
    echo "covenant serve wrote no profile" >&2
    exit 1
}

# timed KIND ARGS...: the wall seconds of one run
timed() {
    local kind="$1"
    shift
    rm -rf "$WORK/reports" "$WORK/state.json"
    local start end
    start=$(date +%s.%N)
    "$BIN" run -q --seed 1 --cases "$CASES" --report-dir "$WORK/reports" \
        --state "$WORK/state.json" "$@" >"$WORK/$kind.out" 2>&1 || {
        echo "$kind run failed:" >&2
        cat "$WORK/$kind.out" >&2
        exit 1
    }
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.3f}')"
}

(cd "$ROOT" && cargo build --release --quiet)
best_single=999 best_diff=999 best_embedded=999
min() { python3 -c "print(min($1, $2))"; }
for i in $(seq "$REPEAT"); do
    serve a 1
    t=$(timed single --profile "$WORK/a.toml")
    best_single=$(min "$best_single" "$t")
    cleanup
    serve a 1
    serve b 2
    t=$(timed differential --profile "$WORK/a.toml" --profile "$WORK/b.toml")
    best_diff=$(min "$best_diff" "$t")
    size=$(du -sk "$WORK/reports" | cut -f1)
    cleanup
    t=$(timed embedded)
    best_embedded=$(min "$best_embedded" "$t")
    echo "repetition $i: single ${best_single}s, differential ${best_diff}s, embedded ${best_embedded}s (fastest so far)" >&2
done
ratio=$(python3 -c "print(f'{$best_diff / $best_single:.2f}')")
echo "| run | wall s (fastest of $REPEAT) |"
echo "|---|---:|"
echo "| single, one served reference | $best_single |"
echo "| differential, two served references | $best_diff |"
echo "| default, embedded reference | $best_embedded |"
echo "differential / single: ${ratio}x; differential reports: ${size} KiB"
