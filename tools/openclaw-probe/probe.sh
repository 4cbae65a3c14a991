#!/usr/bin/env bash
# =====================================================================================================
#  DEVELOPMENT TOOL ONLY. Never a run-time dependency of session-tools, and nothing in the build or in
#  `cargo test` may call it. It needs the npm registry (Node 22 + the real gateway package) and the
#  project's specification tree (SHARED_DIR below); the fixture it writes is committed so tests can run without any of that.
# =====================================================================================================
# Captures ground truth from a REAL OpenClaw-lineage gateway (npm clawdbot@2026.1.24-3, protocol v3)
# for testing the embedded gateway: for each phase it copies SHARED_DIR/examples/openclaw-state to a fresh
# temp dir, starts the real gateway over the copy on loopback (SHARED_DIR/tools/openclaw-gateway/start.sh
# --state <copy> --port 0), runs a fixed, ordered list of gateway calls (probe.mjs), records payloads /
# errors and, for write calls, the affected sessions.json entries and session-dir file lists, stops the
# gateway (start.sh --stop), and finally writes one normalised JSON fixture (volatile values replaced by
# "<now>", "<uuid>", "<ts>", "<stateDir>", "<OC_HOME>"; see the fixture's "notes").
#
# Usage:  tools/openclaw-probe/probe.sh SHARED_DIR [OUT_JSON]
#   SHARED_DIR  path of the shared tree (containing tools/openclaw-gateway and examples/openclaw-state)
#   OUT_JSON    default: tests/fixtures/openclaw-gateway/sample-state.json in this repo
# Env: OC_HOME (default /tmp/oc) as for start.sh (Node 22 + gateway install; first run ~1 min).
#      OC_PACKAGE is passed through to start.sh, but the fixture notes assume the default package.
# Re-runnable: every run uses new temp state copies (removed at the end) and new ports.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,22p' "$0"; exit 64; }
SHARED="$(cd "$1" && pwd)"
OUT="${2:-$REPO/tests/fixtures/openclaw-gateway/sample-state.json}"
START="$SHARED/tools/openclaw-gateway/start.sh"
EXAMPLE="$SHARED/examples/openclaw-state"
export OC_HOME="${OC_HOME:-/tmp/oc}"
[ -x "$START" ] || { echo "probe.sh: not found: $START" >&2; exit 66; }
[ -d "$EXAMPLE/agents" ] || { echo "probe.sh: not found: $EXAMPLE/agents" >&2; exit 66; }

inside_git_repo() { # true if $1 (or a parent) contains .git
  local d; d="$(mkdir -p "$1" && cd "$1" && pwd)"
  while [ "$d" != "/" ]; do [ -e "$d/.git" ] && return 0; d="$(dirname "$d")"; done
  return 1
}
if inside_git_repo "$OC_HOME"; then echo "probe.sh: OC_HOME=$OC_HOME is inside a git repo; refusing" >&2; exit 65; fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/openclaw-probe.XXXXXX")"
if inside_git_repo "$WORK"; then echo "probe.sh: temp dir $WORK is inside a git repo; refusing" >&2; exit 65; fi
PORT=""
cleanup() {
  if [ -n "$PORT" ]; then "$START" --stop --port "$PORT" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

NODE=""
PHASES=(read patch delete agent)
PHASE_FILES=()
for phase in "${PHASES[@]}"; do
  STATE="$WORK/state-$phase"
  mkdir -p "$STATE"
  # a fresh copy of the example state (never the original under shared/); same dirs as start.sh --from-example
  cp -R "$EXAMPLE/agents" "$EXAMPLE/subagents" "$EXAMPLE/cron" "$STATE/"
  chmod -R u+w "$STATE"
  echo "[probe.sh] phase $phase: starting the real gateway on $STATE" >&2
  STARTED_AT="$(date +%s%3N)"
  # the gateway inherits this cwd; keep it an empty dir (sessions.list with per-agent stores resolves
  # transcripts for derived titles relative to the cwd, see the fixture notes)
  mkdir -p "$WORK/cwd"
  OUTS="$(cd "$WORK/cwd" && "$START" --state "$STATE" --port 0)"
  PORT="$(sed -n 's/^PORT=//p' <<<"$OUTS")"
  TOKEN="$(sed -n 's/^TOKEN=//p' <<<"$OUTS")"
  NODE="$(sed -n 's/^NODE=//p' <<<"$OUTS")"
  PHASE_OUT="$WORK/phase-$phase.json"
  "$NODE" "$HERE/probe.mjs" run --phase "$phase" --url "ws://127.0.0.1:$PORT" --token "$TOKEN" \
    --state "$STATE" --started-at "$STARTED_AT" --out "$PHASE_OUT"
  "$START" --stop --port "$PORT" >&2
  rm -rf "${OC_HOME:?}/run/$PORT"   # start.sh's run files for this port (config with the token, log)
  PORT=""
  PHASE_FILES+=("$PHASE_OUT")
done

mkdir -p "$(dirname "$OUT")"
"$NODE" "$HERE/probe.mjs" assemble --example "$EXAMPLE" --oc-home "$OC_HOME" --out "$OUT" "${PHASE_FILES[@]}"
echo "[probe.sh] wrote $OUT" >&2
