#!/usr/bin/env bash
# Every GPU script in one device call: the common suite (default preset, every test, the
# warp-primitives sanitizers and timings) and each lesson's own script. Their logs are packed into
# $OUT/logs.tgz (the device tool brings back at most 8 files); each script's summary is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/cudasync-gpu-all}
mkdir -p "$OUT"
logs=$(mktemp -d)
status=0
for s in gpu-suite gpu-named-barriers gpu-cg-reduce gpu-lock gpu-threadfence gpu-lockfree-barrier gpu-deadlock-demo gpu-multi-gpu; do
  mkdir -p "$logs/$s"
  OUT="$logs/$s" bash "scripts/$s.sh" >"$logs/$s/output.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "#### $s (exit $rc)"
  sed -n '/^SUMMARY/,$p' "$logs/$s/output.txt" | tail -n +2
done
tar czf "$OUT/logs.tgz" -C "$logs" .
exit $status
