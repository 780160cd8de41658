#!/usr/bin/env bash
# The official MCP conformance suite, in both protocol eras.
#
# 1. 2026-07-28 (conformance-2026 in package.json): every server scenario
#    over session-free HTTP, straight against each server of
#    ../mcp-targets.json (`harn serve mcp`, `harn mcp serve`; MCP_TARGETS
#    narrows them), with the known deviations of expected/<target>.yml.
# 2. Released (2025-11-25, sessions): every server scenario against
#    `harn serve mcp server.harn` on stdio, through bridge.mjs, all of
#    which must pass.
#
# usage: run.sh HARN_BIN
set -euo pipefail
harn="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "$0")"
node=node_modules/node/bin/node # Node 22: the suite needs it
HARN_BIN="$harn" "$node" http.mjs
"$node" bridge.mjs "$harn" server.harn 0 2>bridge.log &
bridge=$!
trap 'kill $bridge 2>/dev/null || true' EXIT
port=
for _ in $(seq 600); do
  port=$(sed -n 's/^bridge: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' bridge.log 2>/dev/null)
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "mcp-conformance: the bridge did not start listening"; cat bridge.log; exit 1
fi
out=$(mktemp)
status=0
"$node" node_modules/@modelcontextprotocol/conformance/dist/index.js server --suite all \
  --url "http://127.0.0.1:$port/mcp" >"$out" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$out"
if [ "$status" -ne 0 ] || grep -q '✗' "$out"; then
  echo "mcp-conformance: FAILED (full output below)"
  cat "$out"
  exit 1
fi
scenarios=$(grep -c '^✓' "$out")
echo "mcp-conformance ($scenarios scenarios):"
echo "mcp-conformance: $scenarios passed, 0 failed"
