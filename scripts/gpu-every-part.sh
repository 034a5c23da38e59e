#!/usr/bin/env bash
# Every part of every lesson on the GPU, one part per run (parts marked 'only with --part' included),
# after the sm_90 build and the GPU tests; compute-sanitizer memcheck on the parts that start host
# threads or child processes. Each run's exit code and checks line go to the summary; the whole text
# to $OUT/parts.txt. The fuzz test's GPU variant is left to `ctest -L fuzz` (five minutes on its own).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin gpu-every-part
gpu_build
ctest --test-dir build/gpu -L gpu -LE fuzz --output-on-failure >"$OUT/ctest.log" 2>&1
note "gpu tests: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E '\(Failed\)|\*\*\*Failed|\(Timeout\)' "$OUT/ctest.log" | head -20
# lesson and its parts, from the command line's own definition
"$bin" --cli-spec | python3 -c '
import json, sys
for c in json.load(sys.stdin)["commands"]:
    if c.get("lesson") and c.get("parts"):
        print(c["name"], " ".join(p["id"] if isinstance(p, dict) else p for p in c["parts"]))
' >"$OUT/parts.list"
while read -r lesson parts; do
  fails=()
  for p in $parts; do
    t0=$(date +%s%N); timeout 120 "$bin" "$lesson" --part "$p" --color never >"$OUT/part.tmp" 2>&1; rc=$?; t1=$(date +%s%N)
    { echo "#### cudasync $lesson --part $p (exit $rc, $(( (t1 - t0) / 1000000 )) ms)"; cat "$OUT/part.tmp"; } >>"$OUT/parts.txt"
    [ $rc -eq 0 ] || fails+=("$p:$rc")
  done
  note "$lesson: $(echo "$parts" | wc -w) parts, exit != 0: ${fails[*]:-none}"
done <"$OUT/parts.list"
rm -f "$OUT/part.tmp"
ctest --test-dir build/gpu -L cpu -LE fuzz -j 8 --output-on-failure >"$OUT/ctest-cpu.log" 2>&1
note "cpu tests on the GPU machine: $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\(Failed\)|\*\*\*Failed|\(Timeout\)' "$OUT/ctest-cpu.log" | head -20
sanitize memcheck "lock shared-mutex" lock --backend gpu --part shared-mutex,delay-fix
sanitize memcheck "threadfence host-observer" threadfence --backend gpu --part host-observer,work-queue-race
sanitize memcheck "warp-primitives new parts" warp-primitives --backend gpu --part divergence,shfl-64,cg-tiles
sanitize racecheck "named-barriers early-stamp" named-barriers --backend gpu --part early-stamp
gpu_end
