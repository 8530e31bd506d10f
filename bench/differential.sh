#!/usr/bin/env bash
# bench/differential.sh: the wall time of a differential run (two targets, one plan) against a
# single run, on local references.
#
# Run by hand from the repository root (never part of the test command):
#     bench/differential.sh            # 5 repetitions
#     REPEAT=9 CASES=100 bench/differential.sh
#     LATENCY_MS=1 bench/differential.sh   # references that answer 1 ms late, as across a network
#
# Each repetition starts FRESH references (`covenant serve --port 0 --profile-out`: a run
# deletes fixtures) and a fresh state file, then times the whole process (start-up, reports):
#   single:        covenant run --profile A --seed 1 -q
#   differential:  covenant run --profile A --profile B --seed 1 -q
#   two at once:   covenant run --profile A & covenant run --profile B (two processes at once:
#                  the machine's floor for two targets, without a differential run's sharing)
#   embedded:      covenant run --seed 1 -q (the default run: the reference in-process)
# The references run as their own processes, so `single` and `differential` differ only by the
# second target. Besides wall time, each kind's CPU (covenant's and the references') is read, to
# tell how busy the machine's cores were: a run that keeps every core busy is bound by the
# machine, not by waiting. The machine is shared and its speed drifts, so the kinds alternate within a
# repetition, and the ratios are the medians of the ratios within each repetition. Output: a
# table on stdout.
# Needs: cargo, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPEAT="${REPEAT:-5}"
CASES="${CASES:-25}"
LATENCY_MS="${LATENCY_MS:-0}"
CORES="$(nproc)"
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
    "$BIN" serve --port 0 --seed "$2" --latency-ms "$LATENCY_MS" --profile-out "$WORK/$1.toml" \
        >/dev/null 2>&1 &
    PIDS+=("$!")
    for _ in $(seq 100); do
        [[ -s "$WORK/$1.toml" ]] && return 0
        sleep 0.05
    done
    echo "covenant serve wrote no profile" >&2
    exit 1
}

# cpu_ticks SHELL_PID: CPU clock ticks used so far by the references (PIDS) and by the runs
# SHELL_PID has waited for (fields 14-17 of /proc/PID/stat: user, system, children's user and
# system)
cpu_ticks() {
    local total=0 pid
    for pid in "${PIDS[@]}" "$1"; do
        total=$((total + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat")))
    done
    echo "$total"
}

# measured START_S TICKS0 SHELL_PID: "WALL_S CPU_S" since START_S and TICKS0
measured() {
    local end ticks
    end=$(date +%s.%N)
    ticks=$(cpu_ticks "$3")
    python3 -c "import os; print(f'{$end - $1:.3f}', \
        f'{($ticks - $2) / os.sysconf(\"SC_CLK_TCK\"):.3f}')"
}

# timed KIND ARGS...: the wall and CPU seconds of one run
timed() {
    local kind="$1"
    shift
    rm -rf "$WORK/reports" "$WORK/state.json"
    local start ticks shell=$BASHPID
    ticks=$(cpu_ticks "$shell")
    start=$(date +%s.%N)
    "$BIN" run -q --seed 1 --cases "$CASES" --report-dir "$WORK/reports" \
        --state "$WORK/state.json" "$@" >"$WORK/$kind.out" 2>&1 || {
        echo "$kind run failed:" >&2
        cat "$WORK/$kind.out" >&2
        exit 1
    }
    measured "$start" "$ticks" "$shell"
}

# two_at_once: the wall and CPU seconds of two single runs, one per target, as two processes at
# once: what a differential run would cost without one (the machine's own floor for two targets)
two_at_once() {
    rm -rf "$WORK"/reports-* "$WORK"/state-*.json
    local start ticks shell=$BASHPID
    ticks=$(cpu_ticks "$shell")
    start=$(date +%s.%N)
    for side in a b; do
        "$BIN" run -q --seed 1 --cases "$CASES" --report-dir "$WORK/reports-$side" \
            --state "$WORK/state-$side.json" --profile "$WORK/$side.toml" \
            >"$WORK/two-$side.out" 2>&1 &
    done
    wait
    measured "$start" "$ticks" "$shell"
}

(cd "$ROOT" && cargo build --release --quiet)
: >"$WORK/times"
for i in $(seq "$REPEAT"); do
    serve a 1
    read -r single single_cpu < <(timed single --profile "$WORK/a.toml")
    cleanup
    serve a 1
    serve b 2
    read -r differential differential_cpu < <(timed differential --profile "$WORK/a.toml" \
        --profile "$WORK/b.toml")
    size=$(du -sk "$WORK/reports" | cut -f1)
    cleanup
    serve a 1
    serve b 2
    read -r two two_cpu < <(two_at_once)
    cleanup
    read -r embedded embedded_cpu < <(timed embedded)
    echo "$single $differential $two $embedded $single_cpu $differential_cpu $two_cpu" \
        "$embedded_cpu" >>"$WORK/times"
    echo "repetition $i: single ${single}s, differential ${differential}s," \
        "two at once ${two}s, embedded ${embedded}s" >&2
done
# The machine is shared and its speed drifts: each repetition runs the kinds back to back, and
# the ratios are taken within a repetition (paired), their median reported.
python3 - "$WORK/times" "$REPEAT" "$size" "$CORES" "$LATENCY_MS" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
cores = int(sys.argv[4])
col = lambda i: [r[i] for r in rows]
ratio = lambda i, j: statistics.median(r[i] / r[j] for r in rows)
# busy: CPU seconds (covenant's and the references') over wall seconds and cores; the CPU is
# read in clock ticks, so a single repetition is rough and the median is given
busy = lambda i: statistics.median(r[4 + i] / r[i] / cores for r in rows)
print(f"references answer {sys.argv[5]} ms late; {cores} cores")
print(f"| run | wall s, fastest of {sys.argv[2]} | median | cores busy (median) |")
print("|---|---:|---:|---:|")
names = ["single, one served reference", "differential, two served references",
         "two single runs at once, one per reference", "default, embedded reference"]
for i, name in enumerate(names):
    print(f"| {name} | {min(col(i)):.3f} | {statistics.median(col(i)):.3f} | {busy(i):.0%} |")
print(f"differential / single: {ratio(1, 0):.2f}x (median of paired ratios), "
      f"{min(col(1)) / min(col(0)):.2f}x (fastest over fastest)")
print(f"two at once / single: {ratio(2, 0):.2f}x; differential / two at once: {ratio(1, 2):.2f}x")
print(f"differential reports: {sys.argv[3]} KiB")
PY
