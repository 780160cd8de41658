#!/usr/bin/env bash
# Runs each .harn workload with bin/harn and its .py twin with CPython,
# printing the best of 3 wall-clock times and their ratio. python3 is
# resolved to the real interpreter (sys.executable), so a version-manager
# shim's start-up is not timed; -I keeps the script directory off sys.path.
# For the fair, cross-checked comparison with every peer use
# `make bench-compare`.
set -euo pipefail
cd "$(dirname "$0")"
HARN=${HARN:-../bin/harn}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || echo python3)}
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
printf "%-14s %10s %10s %8s\n" workload "harn(ms)" "cpython(ms)" "ratio"
for f in *.harn; do
  n=${f%.harn}
  h=$(best "$HARN" run "$f")
  p="-" r="-"
  if command -v "$PY" >/dev/null && [ -f "$n.py" ]; then
    p=$(best "$PY" -I "$n.py")
    r=$(awk -v a="$h" -v b="$p" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
  fi
  printf "%-14s %10s %10s %8s\n" "$n" "$h" "$p" "$r"
done
