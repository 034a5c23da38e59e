#!/usr/bin/env bash
# The cost model (issue 18) on a GPU machine, in one call of a few minutes: build (preset gpu: sm_90,
# -Werror), the cost probes' GPU tests, then the three benches, each as text and --json:
# lockfree-barrier --bench, lock --bench and cg-reduce --bench (float and double). Every bench
# prints its sweep, the model beside it (table model: predicted, measured, measured / predicted,
# within +-20 %; terms-<row>; primitives) and its target (own <= 0.95 x grid.sync, the best kernel
# >= 0.98 x CUB). The summary ends with one line per bench, read from the JSON.
# Logs in $OUT (7 files): build.log, ctest-gpu.log, and <bench>.txt / <bench>.json for each bench.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin cost
start_all=$(date +%s)
gpu_build

t0=$(date +%s)
ctest --test-dir build/gpu -L gpu -R 'CostGpu' --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "cost probes' GPU tests ($(( $(date +%s) - t0 )) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E '\(Failed\)|Failure|Expected|Which is|SKIPPED' "$OUT/ctest-gpu.log" | head -20

# bench NAME ARGS...: `cudasync ARGS --bench` as text and as JSON (one run: --json=FILE writes both).
bench() {
  local name=$1 t rc
  shift
  t=$(date +%s)
  "$bin" "$@" --bench --color never --json="$OUT/$name.json" >"$OUT/$name.txt" 2>&1
  rc=$?
  note "$name --bench: exit $rc, $(( $(date +%s) - t )) s, $(tail -1 "$OUT/$name.txt")"
}
bench lockfree-barrier lockfree-barrier
bench lock lock
bench cg-reduce cg-reduce

# One line per bench section: how many cells the model predicts within +-20 %, the cells outside,
# and the target by size. (jq: a fact or cell may be null, a boolean may be false.)
J='def v(f): if f == null or f.value == null then "-" else (f.value | tostring) end;
   def r3(x): if x == null then "-" else ((x * 1000 | round) / 1000 | tostring) end;
   def within: "model within +-20 %: \(v(.facts["model-within"])) of \(v(.facts["model-cells"])) cells";
   def outside: [.notes[]? | select(startswith("outside"))] | if length == 0 then "none outside" else join(" ") end;'
section() { jq -c "$2" "$OUT/$1.json" 2>/dev/null || echo '{}'; }
summary_lines() {
  local sec d
  sec=$(section lockfree-barrier '.report.sections.bench')
  jq -r "$J"' "lockfree-barrier: \(within); own / grid.sync: \([.tables["own-vs-grid-sync"].rows[]? | "\(.blocks) \(r3(.own))"] | join(", ")); best own: \([.tables["own-vs-grid-sync"].rows[]? | "\(.blocks) \(.best) \(r3(."best-ratio"))"] | join(", ")); 5 % faster at every size: own \(v(.facts["own-clearly-faster"])), best \(v(.facts["best-own-clearly-faster"]))"' <<<"$sec"
  jq -r "$J"' "lockfree-barrier: \(outside)"' <<<"$sec"
  sec=$(section lock '.report.sections.bench')
  jq -r "$J"' "lock: \(within)"' <<<"$sec"
  jq -r "$J"' "lock: \(outside)"' <<<"$sec"
  for d in float double; do
    sec=$(section cg-reduce ".report.sections[\"bench-$d\"]")
    jq -r --arg d "$d" "$J"' "cg-reduce \($d): \(within); best / CUB: \([.tables["best-vs-cub"].rows[]? | "\(.size) \(.best) \(r3(."best-ratio"))"] | join(", ")); at CUB's speed (>= 0.98) at every size: \(v(.facts["best-at-library-speed"]))"' <<<"$sec"
    jq -r --arg d "$d" "$J"' "cg-reduce \($d): \(outside)"' <<<"$sec"
  done
}
model_rows() {  # $1 bench, $2 section path
  section "$1" "$2" | jq -r "$J"' .tables.model.rows[]? | "\(.row) @ \(.at): predicted \(r3(.predicted)) measured \(r3(.measured)) ratio \(r3(.ratio))"'
}

echo
echo "### the model beside the measurement (text and JSON in \$OUT)"
model_rows lockfree-barrier '.report.sections.bench'
model_rows lock '.report.sections.bench'
model_rows cg-reduce '.report.sections["bench-float"]'
model_rows cg-reduce '.report.sections["bench-double"]'
while read -r l; do note "$l"; done < <(summary_lines)
note "whole script: $(( $(date +%s) - start_all )) s"
gpu_end
