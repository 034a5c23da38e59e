#!/usr/bin/env bash
# lockfree-barrier on a GPU machine, in one call: build (preset gpu: sm_90, -Werror), every GPU
# test, the lesson's CPU tests and every lesson command (which run on the GPU there), the default
# run timed, the trace, the refusal and --allow-unsafe, compute-sanitizer memcheck on the correct
# barriers, the --bench sweep, and the variants probe (bench/lockfree_barrier_variants.cu, built
# with the rest: each arrival, poll, counter count and cluster design side by side). Logs go to
# $OUT (8 files: build.log, ctest-gpu.log, ctest-cpu.log, runs.txt, sanitizer.log, bench.txt,
# bench.json, probe.txt); the summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-lib.sh
gpu_begin lockfree-barrier
gpu_build

t0=$(date +%s)
ctest --preset gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
note "gpu tests ($(( $(date +%s) - t0 )) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E '\*\*\*Failed|\(Failed\)|Failure|Expected|Which is|SKIPPED' "$OUT/ctest-gpu.log" | head -30
t0=$(date +%s)
ctest --test-dir build/gpu -R 'LockfreeBarrier|Coresidency|LessonCommands' -j 4 --output-on-failure \
  >"$OUT/ctest-cpu.log" 2>&1
note "lockfree-barrier cpu tests and every lesson command, on the GPU ($(( $(date +%s) - t0 )) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest-cpu.log")"
grep -E '\*\*\*Failed|\(Failed\)|Failure|Expected|Which is|stderr' "$OUT/ctest-cpu.log" | head -20

# The default run: wall time including CUDA start-up (goal < 1 s), five runs.
wall_ms lockfree-barrier
runs="$OUT/runs.txt"
"$bin" lockfree-barrier --color never >"$runs" 2>&1
note "default run: exit $?, $(tail -1 "$runs")"
sed -n '/== every barrier side by side/,/checks:/p' "$runs"
grep -E '\[FAIL\]|GPU: wrong values|GPU: a spin reached' "$runs" | head -12
{ echo; echo "### --trace --blocks 16"; } >>"$runs"
"$bin" lockfree-barrier --trace --blocks 16 --part xf-lock,grid-sync,own,own-cluster,relaunch --color never >>"$runs" 2>&1
note "trace run: exit $?, $(tail -1 "$runs")"
{ echo; echo "### --blocks 5000"; } >>"$runs"
"$bin" lockfree-barrier --blocks 5000 --color never >>"$runs" 2>&1
note "--blocks 5000: exit $? (expected 2): $(tail -1 "$runs" | cut -c1-160)"
{ echo; echo "### --blocks 5000 --allow-unsafe"; } >>"$runs"
t0=$(date +%s%N)
"$bin" lockfree-barrier --blocks 5000 --allow-unsafe --color never >>"$runs" 2>&1
rc=$?
note "--blocks 5000 --allow-unsafe: exit $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(tail -1 "$runs")"
grep -E 'GPU: never arrived|GPU: arrived' "$runs" | head -6

# compute-sanitizer memcheck on the correct barriers (the seed's are wrong on purpose).
for blocks in 16 132; do
  sanitize memcheck "$blocks blocks" lockfree-barrier --backend gpu \
    --part relaunch,graph,xf-lock,xf-lockfree,grid-sync,own,own-cluster --blocks "$blocks" --phases 4 --deadline-ms 5000
done

# The sweep: 1, 2, 4 blocks per SM and full co-residency.
t0=$(date +%s)
"$bin" lockfree-barrier --bench --color never --json="$OUT/bench.json" >"$OUT/bench.txt" 2>&1
note "bench: exit $?, $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/bench.txt")"
# Each own barrier / grid.sync at 1 block per SM and at full co-residency, and the floor, from the
# JSON (schema v2: the sweep's "vs-grid-sync" table, cells by column id).
while read -r l; do note "$l"; done < <(python3 -c '
import json, sys
bench = json.load(open(sys.argv[1]))["report"]["sections"]["bench"]
t = bench["tables"]["vs-grid-sync"]
cols = [c["key"] for c in t["columns"]][1:]
for row in t["rows"]:
    if row["row"] in ("own", "own-cluster"):
        for c in (cols[0], cols[-1]):
            print(row["row"] + " / grid.sync at " + c + " blocks: " + str(row[c]))
if "floor" in bench["facts"]:
    print("floor: " + str(bench["facts"]["floor"]["value"]) + " ns")
' "$OUT/bench.json")

# The variants probe (built with the rest).
t0=$(date +%s)
timeout 120 build/gpu/bench/lockfree_barrier_variants >"$OUT/probe.txt" 2>&1
note "variants probe: exit $?, $(( $(date +%s) - t0 )) s, $(grep -E '^data checks:' "$OUT/probe.txt")"

echo
sed -n '/== bench: ns per barrier/,/measurement/p' "$OUT/bench.txt" | head -40
echo
cat "$OUT/probe.txt" | tail -45
gpu_end
