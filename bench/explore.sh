#!/usr/bin/env bash
# bench/explore.sh: the explorer's speed against the embedded reference (issue 39): sequences
# per second on the clean reference, the time a failing sequence takes to shrink under each
# fault only a sequence reveals, and what the default sequences add to the default run.
#
# Run by hand from the repository root (never part of the test command):
#     bench/explore.sh                    # 50 sequences, 3 repeats
#     SEQUENCES=200 REPEAT=1 bench/explore.sh
#
# Each `covenant run` starts a fresh embedded reference. The fastest of $REPEAT runs is kept.
#   1. throughput: `run --filter explore. --explore $SEQUENCES`: sequences and requests per second
#      over the run's own time (report.json meta.duration_ms).
#   2. shrinking: for each fault, `run --explore 1 --filter explore.sequence.1 --fault F`: the
#      sequence's time (play, shrink and the script's replay), its requests, and the steps before
#      and after shrinking with the replays it took.
#   3. the default run with and without the default sequences (`--explore 0`): its own time.
# Output: three tables on stdout (bench/out is gitignored). Needs: cargo, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEQUENCES="${SEQUENCES:-50}"
REPEAT="${REPEAT:-3}"
FAULTS="${FAULTS:-vc-duplicate-accepted-after-three-creates vat-read-shows-newest-after-two-creates bpag-deep-page-skipped evt-token-any-organization evt-desc-drops-oldest-write-after-six}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release/covenant"

# shellcheck source=bench/reference.sh
source "$ROOT/bench/reference.sh"
bench_work explore
need cargo "install Rust"
need python3 "apt-get install -y python3"

echo "building covenant (release)..." >&2
(cd "$ROOT" && cargo build --release --quiet)

# The fastest of $REPEAT runs with these flags: one JSON line on stdout.
measure() { # label [covenant run flags...]
    local label=$1 best=""
    shift
    for _ in $(seq "$REPEAT"); do
        rm -rf "$WORK/reports"
        "$BIN" run --seed 1 -q --report-dir "$WORK/reports" "$@" >"$WORK/run.log" 2>&1 || true
        local row
        row=$(python3 - "$WORK/reports/report.json" "$label" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
seqs = [c for c in r["cases"] if c["id"].startswith("explore.")]
shrunk = ""
for c in seqs:
    for f in c.get("findings", []):
        m = re.search(r"shrunk from (\d+) to (\d+) steps in (\d+) replays", f["message"])
        if m:
            shrunk = "%s -> %s steps, %s replays" % m.groups()
print(json.dumps({
    "label": sys.argv[2], "run_s": r["meta"]["duration_ms"] / 1000,
    "requests": r["counts"]["requests"], "sequences": len(seqs),
    "seq_s": sum(c["duration_ms"] for c in seqs) / 1000, "shrunk": shrunk,
}))
PY
)
        best=$(python3 -c 'import json, sys
rows = [json.loads(x) for x in sys.argv[1:] if x]
print(json.dumps(min(rows, key=lambda r: r["run_s"])))' "$best" "$row")
    done
    echo "$best"
}

echo "## throughput on the clean reference"
row=$(measure "clean" --filter explore. --explore "$SEQUENCES")
python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print("| sequences | requests | run s | sequences/s | requests/s |")
print("|---:|---:|---:|---:|---:|")
print("| %d | %d | %.2f | %.0f | %.0f |" % (r["sequences"], r["requests"], r["run_s"],
      r["sequences"] / r["run_s"], r["requests"] / r["run_s"]))' "$row"

echo
echo "## shrinking a failing sequence"
echo "| fault | run s | requests | shrunk |"
echo "|---|---:|---:|---|"
for fault in $FAULTS; do
    row=$(measure "$fault" --explore 1 --filter explore.sequence.1 --fault "$fault")
    python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print("| %s | %.2f | %d | %s |" % (r["label"], r["run_s"], r["requests"], r["shrunk"]))' "$row"
done

echo
echo "## the default run"
echo "| run | run s | requests |"
echo "|---|---:|---:|"
for explore in 0 2; do
    row=$(measure "--explore $explore" --explore "$explore")
    python3 -c 'import json, sys
r = json.loads(sys.argv[1])
print("| %s | %.2f | %d |" % (r["label"], r["run_s"], r["requests"]))' "$row"
done
