# bench/reference.sh: a fresh reference for each bench run, sourced by the bench scripts.
#
# bench_work NAME makes the scratch directory WORK under bench/out (OUT) and, on exit, stops
# the reference (and whatever the script's bench_stop_more stops) and removes WORK; need CMD HINT
# stops the script with the hint when CMD is missing.
# Needs BIN (the covenant binary) and ROOT (the repository); start_server passes its
# arguments on to `covenant serve` (e.g. --latency-ms 50) and sets SERVER_PID and PROFILE;
# export_credentials exports what bench/mix.lua reads (python3 and curl needed).

SERVER_PID=""

need() { command -v "$1" >/dev/null || { echo "${0##*/}: $1 is missing ($2)" >&2; exit 2; }; }

# What a script stops besides the reference on exit (redefined by the script).
bench_stop_more() { :; }

bench_work() {
    OUT="$ROOT/bench/out"
    mkdir -p "$OUT"
    WORK="$(mktemp -d "$OUT/$1.XXXXXX")"
    trap 'bench_stop_more; stop_server; rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM
}

stop_server() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=""
}

start_server() {
    stop_server
    PROFILE="$WORK/profile.toml"
    rm -f "$PROFILE"
    "$BIN" serve --port 0 --seed 1 --profile-out "$PROFILE" "$@" >"$WORK/serve.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        [[ -s "$PROFILE" ]] && return 0
        sleep 0.05
    done
    echo "${0##*/}: the reference did not start: $(cat "$WORK/serve.log")" >&2
    exit 1
}

# A value of the profile TOML, by dotted key.
profile() { python3 -c 'import sys, tomllib
v = tomllib.load(open(sys.argv[1], "rb"))
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$1" "$2"; }

# The credentials and fixture ids bench/mix.lua reads, from $PROFILE (a banking token fetched
# from the reference's token endpoint).
export_credentials() {
    export FIN_TOKEN FIN_VERSION FIN_ORG BANK_TOKEN BANK_ORG BANK_ORG_HEADER COUNTERPART BANK_ACCOUNT
    FIN_TOKEN=$(profile "$PROFILE" finops.token)
    FIN_VERSION=$(profile "$PROFILE" finops.version)
    FIN_ORG=$(profile "$PROFILE" finops.organization_id)
    BANK_ORG=$(profile "$PROFILE" banking.organization_id)
    BANK_ORG_HEADER=$(profile "$PROFILE" banking.org_header)
    COUNTERPART=$(profile "$PROFILE" finops.counterpart_id)
    BANK_ACCOUNT=$(profile "$PROFILE" banking.bank_account_id)
    BANK_TOKEN=$(curl -sS --max-time 10 -X POST "$(profile "$PROFILE" banking.oauth.token_url)" \
        -d grant_type=client_credentials \
        -d client_id="$(profile "$PROFILE" banking.oauth.client_id)" \
        -d client_secret="$(profile "$PROFILE" banking.oauth.client_secret)" \
        --data-urlencode scope="$(profile "$PROFILE" banking.oauth.scope)" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
}

# `covenant proxy` in front of $PROFILE's target (reports in $WORK/reports, console in
# $WORK/proxy.log): sets PROXY_PID and PROXIED, its URL. stop_proxy stops it with SIGINT, so
# that it writes its reports.
PROXY_PID=""
start_proxy() {
    rm -rf "$WORK/reports"
    "$BIN" proxy --profile "$PROFILE" --listen 127.0.0.1:0 --report-dir "$WORK/reports" \
        >"$WORK/proxy.log" 2>"$WORK/proxy.err" &
    PROXY_PID=$!
    PROXIED=""
    for _ in $(seq 100); do
        PROXIED=$(sed -n 's/.*listening on \(http:[^,]*\),.*/\1/p' "$WORK/proxy.log")
        [[ -n "$PROXIED" ]] && return 0
        sleep 0.05
    done
    echo "${0##*/}: the proxy did not start: $(cat "$WORK/proxy.err")" >&2
    exit 1
}
stop_proxy() {
    if [[ -n "$PROXY_PID" ]] && kill -0 "$PROXY_PID" 2>/dev/null; then
        kill -INT "$PROXY_PID" 2>/dev/null || true
        wait "$PROXY_PID" 2>/dev/null || true
    fi
    PROXY_PID=""
}
