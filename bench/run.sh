#!/usr/bin/env bash
# Runs each .harn workload with bin/harn and its .py twin with python3,
# printing the best of 3 wall-clock times side by side.
set -euo pipefail
cd "$(dirname "$0")"
HARN=${HARN:-../bin/harn}
PY=${PYTHON:-python3}
best() {
  local best=999999
  for _ in 1 2 3; do
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    local ms=$(( (e - s) / 1000000 ))
    (( ms < best )) && best=$ms
  done
  echo "$best"
}
printf "%-12s %10s %10s\n" workload "harn(ms)" "python(ms)"
for f in *.harn; do
  n=${f%.harn}
  h=$(best "$HARN" run "$f")
  p="-"
  if command -v "$PY" >/dev/null && [ -f "$n.py" ]; then p=$(best "$PY" "$n.py"); fi
  printf "%-12s %10s %10s\n" "$n" "$h" "$p"
done
