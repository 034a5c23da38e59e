#!/usr/bin/env bash
# The GPU suite in one call on a machine with one or more NVIDIA GPUs, as that machine comes.
#
#   scripts/gpu.sh                the whole tree, most important first:
#     1. scripts/setup.sh --gpu (apt-get, or the .offline/ bundle where there is no registry);
#     2. the gpu preset (sm_90; CUDASYNC_GPU_ARCHS overrides it), warnings as errors;
#     3. every GPU test (label gpu; the two-GPU ones run where two GPUs are visible), one at a
#        time: several at once share the GPU, and the tests of co-residency and timing assume
#        they do not; then the kernel exercises' mutation test on the GPU (kernel_mutation_gpu);
#     4. each lesson's default run on the GPU (in English and in Chinese), the tour and doctor;
#     5. every lesson's --bench in one run (cudasync bench --out $OUT/results: the files of
#        docs/results/), unless GPU_SH_BENCH=0;
#     6. start-up times (scripts/startup-bench.sh, GPU_SH_STARTUP_RUNS runs of each, 5 unless
#        set), unless GPU_SH_STARTUP=0;
#     7. the fuzz test's GPU variant (argvs with --backend gpu, memcheck on a sample), unless
#        GPU_SH_FUZZ=0.
#   scripts/gpu.sh LESSON...      those lessons in depth (`all`: every lesson, in course order):
#     1, 2 as above; 3. the lessons' GPU tests and core's (by label: tests/CMakeLists.txt labels
#     each test with its lesson), one at a time, then the lessons' CPU tests and the commands
#     their texts show (ShownCommands, by name), which run on the GPU here; 4. each lesson's
#     default run, the tour's run of its manifest, and every part alone (the parts from
#     `cudasync --cli-spec`, those that run only with --part included); 5. the compute-sanitizer
#     runs its manifest declares ("sanitize").
#   GPU_SH_COST=1 adds, in either form, each lesson's cost sweep: `cudasync LESSON --bench`, the
#   cost model beside the measurement (read by id), and the lesson's probes in build/gpu/bench/.
#
# Every lesson run writes --json=FILE and is judged on it with jq, by id: the exit code (0; 77 is
# a waived part, with the report's reason: a two-GPU part where one GPU is visible is reported as
# skipped so), every check of every section passed, and its text at COLUMNS=80 no wider than 80
# columns. Nothing is decided by reading the text. The lessons are lessons/*/lesson.json (course
# order, needs, the tour's run), and must be those the binary's --cli-spec names.
#
# Each step runs under what is left of TOTAL_S (default 560: the device tool's limit is 600), so
# the summary always comes back; a run cut by it is counted apart from the failures. Logs in $OUT
# (build.log, ctest.log, runs.txt, json.tgz: every JSON document, sanitizer.log, startup.md,
# results/, fuzz.log; setup.log when setup fails): the device tool brings back eight files at
# most. The summary is printed last; the exit status is 1 when anything failed.
#
# GPU_SH_DRY=1 (no GPU needed): no setup, build, tests, compute-sanitizer or fuzz; the runs use
# CUDASYNC_BIN (default build/gpu/src/cudasync) with --backend GPU_SH_BACKEND (default model), so
# that the lessons, their parts, the sanitizer runs' arguments and the jq checks can be tried
# anywhere.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export NCCL_NVLS_ENABLE=0   # NVLink multicast stays off, in every child process too

case "${1:-}" in
  -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
selected=()
for a in "$@"; do
  if [ "$a" = all ] || [ -f "lessons/$a/lesson.json" ]; then
    selected+=("$a")
  else
    known=$(for m in lessons/*/lesson.json; do basename "$(dirname "$m")"; done | xargs | sed 's/ /, /g')
    echo "gpu.sh: '$a' is no lesson (accepted: all, $known)" >&2
    exit 2
  fi
done

OUT=${OUT:-/tmp/cudasync-gpu}
mkdir -p "$OUT"
start_all=$(date +%s)
end=$(( start_all + ${TOTAL_S:-560} ))
limit() {  # limit SECONDS: SECONDS, or what is left before $end if that is less (at least 1)
  local left=$(( end - $(date +%s) - 10 ))
  (( left < $1 )) && set -- "$left"
  (( $1 < 1 )) && set -- 1
  echo "$1"
}
left() { echo $(( end - $(date +%s) - 10 )); }
dry=${GPU_SH_DRY:-0}
if [ "$dry" = 1 ]; then backend=${GPU_SH_BACKEND:-model}; else backend=${GPU_SH_BACKEND:-gpu}; fi
work=$(mktemp -d)
mkdir -p "$work/json"
runs="$OUT/runs.txt"
: >"$runs"
rm -f "$OUT/json.tgz" "$OUT/sanitizer.log"

summary=()
failures=0
cuts=0
note() { summary+=("$*"); echo "== $*"; }
failed() { failures=$((failures + 1)); note "FAILED: $*"; }
finish() {  # the JSON documents packed into one file, then the summary, last
  if [ -n "$(ls -A "$work/json")" ]; then tar czf "$OUT/json.tgz" -C "$work" json; fi
  rm -rf "$work"
  note "$failures failed, $cuts cut by the time limit (TOTAL_S ${TOTAL_S:-560}), $(( $(date +%s) - start_all )) s in all"
  echo
  echo SUMMARY
  printf '%s\n' "${summary[@]}"
  exit $(( failures > 0 ))
}

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
  gpu_names=$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)
else
  gpus=0
  gpu_names="no nvidia-smi"
fi
nvcc_line=$(command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -1 || echo "no nvcc")
note "GPUs visible: $gpus ($gpu_names), $nvcc_line"

if [ "$dry" = 1 ]; then
  bin=${CUDASYNC_BIN:-build/gpu/src/cudasync}
  note "dry run (GPU_SH_DRY=1): no setup, build, tests, compute-sanitizer or fuzz; $bin --backend $backend"
else
  t0=$(date +%s)
  if ! scripts/setup.sh --gpu >"$OUT/setup.log" 2>&1; then
    tail -20 "$OUT/setup.log"; failed "setup"; finish
  fi
  note "setup --gpu: $(( $(date +%s) - t0 )) s ($(tail -1 "$OUT/setup.log"))"
  rm -f "$OUT/setup.log"

  t0=$(date +%s)
  archs=()
  [ -n "${CUDASYNC_GPU_ARCHS:-}" ] && archs=("-DCMAKE_CUDA_ARCHITECTURES=$CUDASYNC_GPU_ARCHS")
  if ! { cmake --preset gpu "${archs[@]}" && cmake --build build/gpu -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
    grep -E 'error|Error' "$OUT/build.log" | head -40; tail -20 "$OUT/build.log"
    failed "build"; finish
  fi
  note "build (preset gpu): $(( $(date +%s) - t0 )) s"
  grep -m3 -E 'cudasync: (NCCL|GPU)' "$OUT/build.log"
  bin=build/gpu/src/cudasync
fi
command -v jq >/dev/null || { failed "jq is missing (scripts/setup.sh --gpu installs it)"; finish; }
[ -x "$bin" ] || { failed "no binary at $bin"; finish; }

# The lessons: their manifests (course order, needs, the tour's run) and the binary's definition
# of them (--cli-spec: the parts), which must agree.
course=()
declare -A needs=() two_gpus=()
while IFS=$'\x1f' read -r l n two; do
  course+=("$l")
  needs[$l]=$n
  two_gpus[$l]=$two
done < <(jq -s -r 'sort_by(.order)[] | [.lesson, ([.needs[]? | "\(.need) (\(.for))"] | join("; ")),
                                        ([.needs[]? | select(.need == "two-gpus") | .for] | join("; "))] | join("\u001f")' \
           lessons/*/lesson.json)
spec="$work/cli-spec.json"
"$bin" --cli-spec >"$spec" || { failed "$bin --cli-spec"; finish; }
defined=$(jq -r '[.commands[] | select(.lesson) | .name] | join(" ")' "$spec")
[ "$defined" = "${course[*]}" ] ||
  failed "the binary's lessons ($defined) are not those of lessons/*/lesson.json, in course order (${course[*]})"
parts_of() { jq -r --arg l "$1" '.commands[] | select(.name == $l) | .parts[] | if type == "object" then .id else . end' "$spec"; }
lessons=()
for a in "${selected[@]}"; do
  if [ "$a" = all ]; then lessons+=("${course[@]}"); else lessons+=("$a"); fi
done

# ctest_step LABEL CAP ARGS...: ctest ARGS under the time left (CAP seconds at most), into ctest.log
ctest_step() {
  local label=$1 cap=$2 t0 lim rc
  shift 2
  if [ "$dry" = 1 ]; then note "dry: $label: not run: ctest --test-dir build/gpu $*"; return; fi
  t0=$(date +%s)
  lim=$(limit "$cap")
  { echo; echo "### ctest $*"; } >>"$OUT/ctest.log"
  timeout "$lim" ctest --test-dir build/gpu --output-on-failure "$@" >"$work/ctest.tmp" 2>&1
  rc=$?
  cat "$work/ctest.tmp" >>"$OUT/ctest.log"
  local line
  line="$label, $(( $(date +%s) - t0 )) s: $(grep -E 'tests passed|tests failed|No tests were found' "$work/ctest.tmp" | tail -1)"
  if grep -q 'No tests were found' "$work/ctest.tmp"; then failed "$line (ctest $*)"
  elif (( rc == 0 )); then note "$line"
  elif (( rc == 124 && lim < cap )); then cuts=$((cuts + 1)); note "$line cut by the time limit"
  else failed "$line (ctest exit $rc)"; fi
  grep -E '\(Failed\)|\*\*\*Failed|\(Timeout\)|\*\*\*Skipped' "$work/ctest.tmp" | head -20
}

[ "$dry" = 1 ] || : >"$OUT/ctest.log"
if [ ${#lessons[@]} -eq 0 ]; then
  ctest_step "gpu tests (label gpu)" 200 -L gpu -LE 'fuzz|mutation' --timeout 120
  # Every kernel exercise's reference over 20 seeds and its mutants, on the GPU and the PTX model.
  ctest_step "the kernel exercises' mutation test (GPU)" 240 -R '^kernel_mutation_gpu$' --timeout 240
else
  # Labels are the lessons' ids (tests/CMakeLists.txt); ShownCommands' names end with the lesson.
  ids=$(IFS='|'; echo "${lessons[*]}")
  ctest_step "gpu tests of ${lessons[*]} and core (one at a time)" 200 -L "^($ids|core)\$" -LE '^cpu$' --timeout 120
  ctest_step "cpu tests of ${lessons[*]}" 150 -L "^($ids)\$" -LE '^gpu$' -j 8 --timeout 120
  ctest_step "the commands their texts show, on the GPU" 150 -R "ShownCommands\\..*/(${ids//-/_})( |\$)" -j 8 --timeout 140
fi

# judge FILE: the run's document read by id: j_passed (checks passed), j_failed (section/check of
# every check that did not pass), j_waived ("part: reason; ..."), j_error ("kind: message" of an
# error document). Fails without a document.
judge() {
  local out
  out=$(jq -r '[ ([.report.sections // {} | .[] | .checks // {} | .[] | select(.passed == true)] | length | tostring),
                 ([.report.sections // {} | to_entries[] | .key as $s | .value.checks // {} | .[]
                   | select(.passed != true) | "\($s)/\(.id)"] | join(" ")),
                 ([.report.waived // {} | .[] | "\(.part): \(.reason)"] | join("; ")),
                 (if .error then "\(.error.kind): \(.error.message)" else "" end)
               ] | map(gsub("[\n\u001f]"; " ")) | join("\u001f")' "$1" 2>/dev/null) || return 1
  [ -n "$out" ] || return 1
  IFS=$'\x1f' read -r j_passed j_failed j_waived j_error <<<"$out"
}

declare -A waived=()  # "lesson/part": why it was waived, from the runs' own documents
n=0
# cudasync_run ARGS...: `cudasync ARGS --backend B --color never --json=FILE` at COLUMNS=80, its
# text into runs.txt, judged by id. Sets run_line, run_ms, run_width, run_json; returns 0 passed,
# 1 failed, 2 waived (exit 77), 3 cut or not run for the time limit.
cudasync_run() {
  local cap=120 lim t0 rc shown="cudasync $*"
  n=$((n + 1))
  run_json="$work/json/$(printf '%03d' "$n")-$(printf '%s' "$*" | tr -c 'a-zA-Z0-9.-' '_' | cut -c1-60).json"
  run_ms=- run_width=0
  if (( $(left) < 15 )); then
    cuts=$((cuts + 1)); run_line="$shown: not run (the time limit)"; return 3
  fi
  lim=$(limit $cap)
  t0=$(date +%s%N)
  COLUMNS=80 timeout "$lim" "$bin" "$@" --backend "$backend" --color never --json="$run_json" \
    </dev/null >"$work/text" 2>"$work/err"
  rc=$?
  run_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  run_width=$(LC_ALL=C.UTF-8 wc -L <"$work/text")
  { echo; echo "### $shown --backend $backend (exit $rc, $run_ms ms)"; cat "$work/text"
    if [ -s "$work/err" ]; then echo "--- stderr"; cat "$work/err"; fi; } >>"$runs"
  if (( rc == 124 && lim < cap )); then
    cuts=$((cuts + 1)); run_line="$shown: cut by the time limit after $run_ms ms"; return 3
  fi
  if ! judge "$run_json"; then run_line="$shown: exit $rc, $run_ms ms, no JSON document"; return 1; fi
  run_line="$shown: exit $rc, $run_ms ms, checks passed: $j_passed"
  [ -n "$j_failed" ] && run_line+=", failed: $j_failed"
  [ -n "$j_waived" ] && run_line+=", waived: $j_waived"
  [ -n "$j_error" ] && run_line+=", $j_error"
  (( run_width > 80 )) && run_line+=", text $run_width columns wide"
  # Waived parts are remembered (their sanitizer runs are skipped): from the report, or from an
  # error document of kind waived for the parts the run asked for.
  local p why
  while IFS=$'\t' read -r p why; do [ -n "$p" ] && waived[$1/$p]=$why; done \
    < <(jq -r '.report.waived // {} | .[] | [.part, .reason] | map(gsub("\t"; " ")) | join("\t")' "$run_json")
  if (( rc == 77 )) && [ "${j_error%%:*}" = waived ]; then
    for p in $(part_list "$@"); do waived[$1/$p]=${j_error#waived: }; done
  fi
  (( rc == 77 )) && return 2
  (( rc == 0 )) && [ -z "$j_failed" ] && [ -z "$j_error" ] && (( run_width <= 80 )) && return 0
  return 1
}
part_list() {  # part_list ARGS...: the parts --part names, one a line
  while [ $# -gt 0 ]; do
    case "$1" in
      --part) [ $# -gt 1 ] && tr ',' '\n' <<<"$2"; shift ;;
      --part=*) tr ',' '\n' <<<"${1#--part=}" ;;
    esac
    shift
  done
}
# waived_as LESSON: how a waived run of LESSON is reported: skipped, where its manifest needs two
# GPUs (the two-gpus need, and what for) and fewer are visible; else waived
waived_as() {
  if (( gpus < 2 )) && [ -n "${two_gpus[$1]:-}" ]; then
    echo "skipped (GPUs visible: $gpus; two needed for ${two_gpus[$1]})"
  else
    echo waived
  fi
}

# 4. The lessons' runs.
if [ ${#lessons[@]} -eq 0 ]; then
  for l in "${course[@]}"; do
    # In Chinese too: the sentences only a GPU run prints come from the catalog as well.
    for lang in en zh; do
      cudasync_run "$l" --lang "$lang"
      case $? in
        0|3) note "$run_line" ;;
        2) note "$(waived_as "$l"): $run_line" ;;
        *) failed "$run_line" ;;
      esac
    done
  done
else
  for l in "${lessons[@]}"; do
    mapfile -t tour < <(jq -r '.tour[]?' "lessons/$l/lesson.json")
    mapfile -t parts < <(parts_of "$l")
    ok=0 bad=0 skipped=0 cut=0 checks=0 widest=0 times=()
    for p in :default :zh :tour "${parts[@]}"; do  # a part's id never starts with ':'
      case "$p" in
        :default) args=("$l"); what=default ;;
        :zh) args=("$l" --lang zh); what=zh ;;
        :tour) args=("$l" "${tour[@]}"); what=tour ;;
        *) args=("$l" --part "$p"); what=$p ;;
      esac
      cudasync_run "${args[@]}"
      rc=$?
      echo "-- $run_line"
      times+=("$what $run_ms")
      (( run_width > widest )) && widest=$run_width
      case $rc in
        0) ok=$((ok + 1)); checks=$((checks + j_passed)) ;;
        2) skipped=$((skipped + 1)); note "$(waived_as "$l"): $run_line" ;;
        3) cut=$((cut + 1)) ;;
        *) bad=$((bad + 1)); failed "$run_line" ;;
      esac
    done
    note "$l: $((${#parts[@]} + 3)) runs (the default in en and zh, the tour's, ${#parts[@]} parts): $ok passed with $checks checks, $bad failed, $skipped waived, $cut not run; widest text $widest columns; ms: ${times[*]}"
    [ -n "${needs[$l]:-}" ] && note "$l needs: ${needs[$l]}"
  done
fi
if [ ${#lessons[@]} -eq 0 ]; then
  for args in tour doctor; do
    cudasync_run "$args"
    case $? in 0|3) note "$run_line" ;; *) failed "$run_line" ;; esac
  done
fi

# 5 (lessons). compute-sanitizer: each lesson's "sanitize" runs (lessons/<lesson>/lesson.json: the
# tool, what must come of it, the lesson's arguments; --backend, --color and --json=FILE are added).
# memcheck-kernels is memcheck without CUDA API errors (--report-api-errors no): for a part that
# calls NCCL, whose own probing of its kernels returns cudaErrorNoKernelImageForDevice to itself.
# What must come of it: clean, no report from the tool (exit 0) and every check of the lesson
# passed; caught, the tool reports what the run does wrong on purpose (exit 99); own, the lesson
# runs the tool itself and shows its report as the table of that id. A run whose parts were waived
# in their own runs (two-GPU parts on one GPU) is skipped.
san=$(command -v compute-sanitizer || true)
[ -z "$san" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && san=/usr/local/cuda/bin/compute-sanitizer
# sanitize LESSON TOOL EXPECT ARGS...: one run
sanitize() {
  local lesson=$1 tool=$2 expect=$3 p why lim t0 rc json shown says
  shift 3
  if [ "$expect" = own ]; then shown="cudasync $lesson $* (runs $tool itself)"
  else shown="compute-sanitizer --tool $tool cudasync $lesson $*"; fi
  for p in $(part_list "$@"); do
    why=${waived[$lesson/$p]:-}
    if [ -n "$why" ]; then note "$(waived_as "$lesson"): $shown: $p was waived: $why"; return; fi
  done
  if [ "$dry" = 1 ]; then
    if [ "$expect" = own ]; then note "dry: $shown: not run (on the GPU only)"; return; fi
    cudasync_run "$lesson" "$@"
    case $? in
      0|2|3) note "dry: $tool not run; $run_line" ;;
      *) failed "dry: $tool not run; $run_line" ;;
    esac
    return
  fi
  if [ -z "$san" ] && [ "$expect" != own ]; then failed "$shown: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"; return; fi
  if (( $(left) < 15 )); then cuts=$((cuts + 1)); note "$shown: not run (the time limit)"; return; fi
  n=$((n + 1))
  json="$work/json/$(printf '%03d' "$n")-$tool-$lesson.json"
  lim=$(limit 300)   # a cap against a hang, not an expectation
  t0=$(date +%s)
  if [ "$expect" = own ]; then
    timeout "$lim" "$bin" "$lesson" "$@" --backend "$backend" --color never --json="$json" </dev/null >"$work/san" 2>&1
  else
    local tool_args=(--tool "$tool")
    [ "$tool" = memcheck-kernels ] && tool_args=(--tool memcheck --report-api-errors no)
    timeout "$lim" "$san" "${tool_args[@]}" --target-processes application-only --error-exitcode 99 \
      "$bin" "$lesson" "$@" --backend "$backend" --color never --json="$json" </dev/null >"$work/san" 2>&1
  fi
  rc=$?
  { echo "### $shown (exit $rc, $(( $(date +%s) - t0 )) s)"; cat "$work/san"; } >>"$OUT/sanitizer.log"
  # The tool's own summary line, shown as it is (the verdict is the exit code and the document).
  says=$(grep -E 'SUMMARY' "$work/san" | tail -1 | sed 's/^=* *//')
  j_passed=0 j_failed="" j_error=""
  judge "$json" || j_error="no JSON document"
  local line="$shown: exit $rc, $(( $(date +%s) - t0 )) s, ${says:-no summary line}, checks passed: $j_passed"
  [ -n "$j_failed" ] && line+=", failed: $j_failed"
  [ -n "$j_error" ] && line+=", $j_error"
  if (( rc == 124 && lim < 300 )); then cuts=$((cuts + 1)); note "$line: cut by the time limit"; return; fi
  case $expect in
    clean) (( rc == 0 )) && [ -z "$j_failed" ] && [ -z "$j_error" ] && { note "$line"; return; } ;;
    caught) (( rc == 99 )) && { note "$line: caught, as it must be"; return; }
            line+=" (the tool must report this run: exit 99)" ;;
    own) if (( rc == 0 )) && [ -z "$j_failed" ] && [ -z "$j_error" ] &&
            jq -e --arg t "$tool" '[.report.sections[] | .tables // {} | has($t)] | any' "$json" >/dev/null; then
           note "$line; $(jq -r '[.report.sections[] | .facts // {} | to_entries[] | select(.key | startswith("sanitize"))
                                  | "\(.key): \(.value.value)"] | join("; ")' "$json")"
           return
         fi
         line+=" (the report must hold the table '$tool')" ;;
  esac
  failed "$line"
}
for lesson in "${lessons[@]}"; do
  while read -r -u 3 tool expect rest; do
    [ -n "$tool" ] || continue
    read -ra args <<<"$rest"
    sanitize "$lesson" "$tool" "$expect" "${args[@]}"
  done 3< <(jq -r '(.sanitize // [])[] | ([.tool, .expect] + .args) | join(" ")' "lessons/$lesson/lesson.json")
done

# 5. Every lesson's --bench in one run, the files of docs/results/.
if [ ${#lessons[@]} -eq 0 ] && [ "${GPU_SH_BENCH:-1}" != 0 ]; then
  t0=$(date +%s)
  timeout "$(limit 150)" "$bin" bench --backend "$backend" --out "$OUT/results" --force >"$work/bench" 2>&1
  rc=$?
  line="bench --out results: exit $rc, $(( $(date +%s) - t0 )) s"
  if (( rc == 0 )); then note "$line"; else failed "$line"; fi
  tail -3 "$work/bench"
fi

# GPU_SH_COST=1: each lesson's cost sweep, the model beside the measurement, and its probes.
if [ "${GPU_SH_COST:-0}" = 1 ]; then
  cost_lessons=("${lessons[@]}")
  [ ${#cost_lessons[@]} -eq 0 ] && cost_lessons=("${course[@]}")
  for l in "${cost_lessons[@]}"; do
    cudasync_run "$l" --bench
    case $? in 0|2|3) note "$run_line" ;; *) failed "$run_line" ;; esac
    [ -s "$run_json" ] || continue
    # Per sweep, by id: the cells the model predicts within +-20 % (fact model-within of
    # model-cells), those outside (table model, column within), the sweep's other facts (its
    # targets), and the rows of its target tables (those with a best-ratio column: own / grid.sync,
    # best / CUB by size).
    while read -r line; do note "$l $line"; done < <(jq -r '
      def v: if . == null then "-" elif type == "number" then ((. * 1000 | round) / 1000 | tostring)
             else tostring end;
      .report.sections // {} | to_entries[] | select(.value.facts["model-within"]) | .key as $s | .value
      | "\($s): model within +-20 %: \(.facts["model-within"].value | v) of \(.facts["model-cells"].value | v) cells"
        + "; outside: \([.tables.model.rows[]? | select(.within == false) | "\(.row) @ \(.at) \(.ratio | v)"]
                        | if length == 0 then "none" else join(", ") end)"
        + ([.facts | to_entries[] | select(.key | test("^model-(within|cells)$") | not) | "; \(.key) \(.value.value | v)"]
           | join("")),
        (.tables // {} | to_entries[] | select([.value.columns[].key] | index("best-ratio")) | .key as $t
         | [.value.columns[].key] as $c
         | "\($s) \($t): " + ([.value.rows[] | . as $r | "\($r[$c[0]] | v): " + ([$c[1:][] | "\(.) \($r[.] | v)"] | join(" "))]
                              | join("; ")))' "$run_json")
    model=$(jq -r 'def r3: if . == null then "-" else ((. * 1000 | round) / 1000 | tostring) end;
                   .report.sections // {} | to_entries[] | .key as $s | .value.tables.model.rows[]?
                   | "\($s): \(.row) @ \(.at): predicted \(.predicted | r3), measured \(.measured | r3), ratio \(.ratio | r3)"' \
            "$run_json")
    [ -n "$model" ] && printf '\n### %s --bench: the model beside the measurement\n%s\n' "$l" "$model" >>"$runs"
    [ "$dry" = 1 ] && continue
    for probe in build/gpu/bench/"${l//-/_}"_*; do
      [[ -f "$probe" && -x "$probe" ]] || continue
      t0=$(date +%s)
      { echo; echo "### $probe"; } >>"$runs"
      timeout "$(limit 120)" "$probe" >>"$runs" 2>&1
      rc=$?
      line="probe $probe: exit $rc, $(( $(date +%s) - t0 )) s"
      if (( rc == 0 )); then note "$line"; else failed "$line"; fi
    done
  done
fi

# 6. Start-up times.
if [ ${#lessons[@]} -eq 0 ] && [ "${GPU_SH_STARTUP:-1}" != 0 ]; then
  t0=$(date +%s)
  timeout "$(limit 200)" scripts/startup-bench.sh "$bin" "${GPU_SH_STARTUP_RUNS:-5}" >"$OUT/startup.md" 2>&1
  rc=$?
  line="startup bench: exit $rc, $(( $(date +%s) - t0 )) s (startup.md)"
  if (( rc == 0 )); then note "$line"; else failed "$line"; fi
fi

# 7. The fuzz test's GPU variant.
if [ ${#lessons[@]} -eq 0 ] && [ "${GPU_SH_FUZZ:-1}" != 0 ] && [ "$dry" != 1 ]; then
  python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  t0=$(date +%s)
  # The system Python: setup.sh put jsonschema there, so each document is validated too.
  timeout "$(limit 130)" "$python" tests/fuzz/fuzz_cli.py --binary "$bin" --schema schema/report-v2.json \
    --backend gpu --runs "${GPU_SH_FUZZ_RUNS:-300}" --jobs 8 --budget 50 --memcheck 6 >"$OUT/fuzz.log" 2>&1
  rc=$?
  line="gpu fuzz: exit $rc, $(( $(date +%s) - t0 )) s"
  if (( rc == 0 )); then note "$line"; else failed "$line"; fi
  grep -E '^fuzz:' "$OUT/fuzz.log" | tail -6
fi

finish
