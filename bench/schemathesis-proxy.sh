#!/usr/bin/env bash
# bench/schemathesis-proxy.sh: a client nobody here wrote (Schemathesis), through `covenant proxy`,
# against an implementation that keeps the contract: the proxy must fail nothing of the target.
#
# Run by hand from the repository root (never part of the test command):
#     bench/schemathesis-proxy.sh                 # 25 examples per operation
#     MAX_EXAMPLES=100 bench/schemathesis-proxy.sh
#     SERVE_ARGS="--fault rcv-create-200" bench/schemathesis-proxy.sh   # a target that breaks a rule
#
# What it does:
#   1. builds covenant in release, starts a fresh reference (`covenant serve`, with $SERVE_ARGS)
#      and `covenant proxy --profile P` in front of it;
#   2. runs Schemathesis (installed into bench/.venv, as bench/compare.sh does) against the proxy
#      with `covenant openapi` as its schema: phases examples, coverage and fuzzing, with each
#      area's credentials from the profile (and, as a real client's misconfiguration, every
#      operation also once with no secrets at all: `Bearer ` and empty headers);
#   3. stops the proxy with SIGINT and prints its verdict, its counts, and every rule it failed
#      with one example (bench/out/schemathesis-proxy.json keeps them).
# Exit 0 when the proxy's verdict is what the target deserves (PASS for the reference).
# Needs: cargo, python3 (venv), curl.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/bench/.venv"
MAX_EXAMPLES="${MAX_EXAMPLES:-25}"
SERVE_ARGS="${SERVE_ARGS:-}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release/covenant"

# shellcheck source=bench/reference.sh
source "$ROOT/bench/reference.sh"
bench_work stproxy
bench_stop_more() { stop_proxy; }

need cargo "install Rust"
need python3 "apt-get install -y python3 python3-venv"
need curl "apt-get install -y curl"

echo "== building covenant (release)" >&2
(cd "$ROOT" && cargo build --release --quiet)
if [[ ! -x "$VENV/bin/st" ]]; then
    echo "== installing Schemathesis into bench/.venv" >&2
    python3 -m venv "$VENV"
    timeout 600 "$VENV/bin/pip" install --quiet schemathesis
fi

# shellcheck disable=SC2086
start_server $SERVE_ARGS
export_credentials
"$BIN" openapi --org-header "$BANK_ORG_HEADER" >"$WORK/openapi.json"
start_proxy
# The base URL's path (the reference serves at its root, a deployment may not).
BASE="$(profile "$PROFILE" base_url)"
PREFIX="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).path.rstrip("/"))' "$BASE")"

# st_run NAME FIN_AUTH BANK_AUTH: one Schemathesis run through the proxy with these credentials.
st_run() {
    cat >"$WORK/$1.toml" <<TOML
[[operations]]
include-path-regex = "^/finops/"
headers = { Authorization = "$2", x-finops-version = "\${FIN_VERSION}", x-organization-id = "\${FIN_ORG}" }

[[operations]]
include-path-regex = "^/embedded-banking/"
headers = { Authorization = "$3", $BANK_ORG_HEADER = "\${BANK_ORG}" }
TOML
    echo "== schemathesis ($1) through the proxy, $MAX_EXAMPLES examples per operation" >&2
    # From the scratch directory: Schemathesis keeps a cache of past failures in ./.schemathesis.
    (cd "$WORK" && timeout 1800 "$VENV/bin/st" --config-file "$WORK/$1.toml" run \
        "$WORK/openapi.json" --url "$PROXIED$PREFIX" --max-examples "$MAX_EXAMPLES" --seed 1 \
        --phases examples,coverage,fuzzing --checks all --no-color >"$WORK/st-$1.out" 2>&1) || true
    tail -n 3 "$WORK/st-$1.out" >&2
}
st_run credentials 'Bearer ${FIN_TOKEN}' 'Bearer ${BANK_TOKEN}'
st_run no-secrets 'Bearer ' ''
stop_proxy

python3 - "$WORK/reports/report.json" <<'PY' | tee "$OUT/schemathesis-proxy.json"
import json, sys
report = json.load(open(sys.argv[1]))
failed = {}
for case in report["cases"]:
    for f in case.get("findings", []):
        if f.get("level", "must") in ("must", "should") and case.get("verdict") in ("fail", "warn"):
            failed.setdefault(f["rule"], {"count": 0, "example": f.get("message", "")})
            failed[f["rule"]]["count"] += 1
print(json.dumps({
    "verdict": report.get("verdict"),
    "exchanges": report["counts"].get("requests"),
    "counts": report["counts"],
    "broken": failed,
}, indent=2))
PY
