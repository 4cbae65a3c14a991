#!/usr/bin/env bash
# Measures the README's set-up commands as on a fresh machine: a new clone of this
# repository's HEAD in DIR/session-tools and an empty HOME in DIR/home (no cargo registry,
# npm, pip, Node, OpenClaw or compiled-component cache); the Rust toolchain is kept
# (rustup's, found through RUSTUP_HOME), as the README presumes it. Three phases, each
# timed after the one before: the demo command, the test command (the fast tier), and the
# OpenClaw tier (skip it with --no-openclaw). Each phase's output is in DIR/<phase>.log.
# Usage: tools/setup-time.sh [--no-openclaw] DIR   (DIR must not exist; needs about 15 GB)
set -euo pipefail
openclaw=1
if [ "${1:-}" = "--no-openclaw" ]; then openclaw=0; shift; fi
dir=${1:?usage: tools/setup-time.sh [--no-openclaw] DIR (a directory that does not exist yet)}
[ -e "$dir" ] && { echo "$dir exists: give a new directory" >&2; exit 2; }
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
cargo_bin=$(dirname "$(command -v cargo)")
mkdir -p "$dir/home"
dir=$(cd "$dir" && pwd)
git clone -q "$repo" "$dir/session-tools"
cd "$dir/session-tools"
export HOME="$dir/home" CARGO_HOME="$dir/home/.cargo" RUSTUP_HOME="$rustup_home"
export PATH="$cargo_bin:/usr/local/bin:/usr/bin:/bin"
echo "commit $(git log -1 --format=%h), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), start $(date +%T); logs in $dir"

# phase NAME COMMAND: runs COMMAND, its output to DIR/NAME.log; prints its exit status and seconds.
failed=0
phase() {
    local name=$1 start end rc
    shift
    start=$(date +%s)
    set +e
    ( "$@" ) > "$dir/$name.log" 2>&1
    rc=$?
    set -e
    end=$(date +%s)
    echo "$name: exit $rc, $(( end - start )) s ($(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
    [ "$rc" = 0 ] || failed=1
}
demo() { rustup target add wasm32-wasip2 && cargo run --release --bin session-tools -- demo; }
tests() { rustup target add wasm32-wasip2 && cargo test --release; }
openclaw_tier() { cargo test --release -p session-tools-openclaw-tests; }
# no_openclaw_installed: the fast tier installs no OpenClaw release: no openclaw or clawdbot
# package under HOME, neither installed nor in npm's cache. Looked at between the test
# command and the OpenClaw tier, whose installs come after it.
no_openclaw_installed() {
    if find "$HOME" \( -path '*node_modules/openclaw' -o -path '*node_modules/clawdbot' -o -name 'openclaw@*' -o -name 'clawdbot@*' \) -print | grep .; then
        return 1
    fi
    if grep -rlsE '"key":"[^"]*/(openclaw|clawdbot)/-/' "$HOME/.npm/_cacache/index-v5" | head -3 | grep .; then
        return 1
    fi
    echo "after the test command: no OpenClaw package under $HOME"
}
all_start=$(date +%s)
phase demo demo
phase tests tests
if ! no_openclaw_installed; then
    echo "the fast tier installed an OpenClaw package under $HOME" >&2
    failed=1
fi
if [ "$openclaw" = 1 ]; then phase openclaw openclaw_tier; fi
echo "all: $(( $(date +%s) - all_start )) s"
exit "$failed"
