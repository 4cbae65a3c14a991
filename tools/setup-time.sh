#!/usr/bin/env bash
# Measures the README's two set-up commands as on a fresh machine:
# a new clone of this repository's HEAD in DIR/session-tools and an empty HOME in DIR/home
# (no cargo registry, npm, pip, Node, OpenClaw or compiled-component cache); the Rust
# toolchain is kept (rustup's, found through RUSTUP_HOME), as the README presumes it.
# Usage: tools/setup-time.sh DIR   (DIR must not exist; needs about 12 GB)
set -euo pipefail
dir=${1:?usage: tools/setup-time.sh DIR (a directory that does not exist yet)}
[ -e "$dir" ] && { echo "$dir exists: give a new directory" >&2; exit 2; }
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
cargo_bin=$(dirname "$(command -v cargo)")
mkdir -p "$dir/home"
git clone -q "$repo" "$dir/session-tools"
cd "$dir/session-tools"
export HOME="$dir/home" CARGO_HOME="$dir/home/.cargo" RUSTUP_HOME="$rustup_home"
export PATH="$cargo_bin:/usr/local/bin:/usr/bin:/bin"
echo "commit $(git log -1 --format=%h), start $(date +%T); logs in $dir"
start=$(date +%s)
set +e
( rustup target add wasm32-wasip2 && cargo run --release --bin session-tools -- demo ) > "$dir/demo.log" 2>&1
demo_rc=$?
demo_end=$(date +%s)
echo "demo: exit $demo_rc, $(( demo_end - start )) s"
( rustup target add wasm32-wasip2 && cargo test --release --workspace ) > "$dir/test.log" 2>&1
test_rc=$?
end=$(date +%s)
echo "tests: exit $test_rc, $(( end - demo_end )) s"
echo "both: $(( end - start )) s"
[ "$demo_rc" = 0 ] && [ "$test_rc" = 0 ]
