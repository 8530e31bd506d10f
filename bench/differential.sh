#!/usr/bin/env bash
# bench/differential.sh: the wall time of a differential run (two targets, one plan) against a
# single run, on local references.
#
# Run by hand from the repository root (never part of the test command):
#     bench/differential.sh            # 5 repetitions
#     REPEAT=9 CASES=100 bench/differential.sh
#
# Each repetition starts FRESH references (`covenant serve --port 0 --profile-out`: a run
# deletes fixtures) and a fresh state file, then times the whole process (start-up, reports):
#   single:        covenant run --profile A --seed 1 -q
#   differential:  covenant run --profile A --profile B --seed 1 -q
#   two at once:   covenant run --profile A & covenant run --profile B (two processes at once:
#                  the machine's floor for two targets, without a differential run's sharing)
#   embedded:      covenant run --seed 1 -q (the default run: the reference in-process)
# The references run as their own processes, so `single` and `differential` differ only by the
# second target. The machine is shared and its speed drifts, so the kinds alternate within a
# repetition, and the ratios are the medians of the ratios within each repetition. Output: a
# table on stdout.
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

# two_at_once: the wall seconds of two single runs, one per target, as two processes at once:
# what a differential run would cost without one (the machine's own floor for two targets)
two_at_once() {
    rm -rf "$WORK"/reports-* "$WORK"/state-*.json
    local start end
    start=$(date +%s.%N)
    for side in a b; do
        "$BIN" run -q --seed 1 --cases "$CASES" --report-dir "$WORK/reports-$side" \
            --state "$WORK/state-$side.json" --profile "$WORK/$side.toml" \
            >"$WORK/two-$side.out" 2>&1 &
    done
    wait
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.3f}')"
}

(cd "$ROOT" && cargo build --release --quiet)
: >"$WORK/times"
for i in $(seq "$REPEAT"); do
    serve a 1
    single=$(timed single --profile "$WORK/a.toml")
    cleanup
    serve a 1
    serve b 2
    differential=$(timed differential --profile "$WORK/a.toml" --profile "$WORK/b.toml")
    size=$(du -sk "$WORK/reports" | cut -f1)
    cleanup
    serve a 1
    serve b 2
    two=$(two_at_once)
    cleanup
    embedded=$(timed embedded)
    echo "$single $differential $two $embedded" >>"$WORK/times"
    echo "repetition $i: single ${single}s, differential ${differential}s, two at once ${two}s, embedded ${embedded}s" >&2
done
# The machine is shared and its speed drifts: each repetition runs the kinds back to back, and
# the ratios are taken within a repetition (paired), their median reported.
python3 - "$WORK/times" "$REPEAT" "$size" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
col = lambda i: [r[i] for r in rows]
ratio = lambda i, j: statistics.median(r[i] / r[j] for r in rows)
print(f"| run | wall s, fastest of {sys.argv[2]} | median |")
print("|---|---:|---:|")
names = ["single, one served reference", "differential, two served references",
         "two single runs at once, one per reference", "default, embedded reference"]
for i, name in enumerate(names):
    print(f"| {name} | {min(col(i)):.3f} | {statistics.median(col(i)):.3f} |")
print(f"differential / single: {ratio(1, 0):.2f}x (median of paired ratios), "
      f"{min(col(1)) / min(col(0)):.2f}x (fastest over fastest)")
print(f"two at once / single: {ratio(2, 0):.2f}x; differential / two at once: {ratio(1, 2):.2f}x")
print(f"differential reports: {sys.argv[3]} KiB")
PY
