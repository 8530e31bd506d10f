# bench/reference.sh: a fresh reference for each bench run, sourced by the bench scripts.
#
# Needs BIN (the covenant binary) and WORK (a scratch directory); start_server passes its
# arguments on to `covenant serve` (e.g. --latency-ms 50) and sets SERVER_PID and PROFILE.

SERVER_PID=""

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
