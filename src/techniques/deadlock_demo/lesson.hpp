#pragma once
// The deadlock-demo lesson as core runs it, and the host side of its topics: the grid parts
// (grid.cpp), the lane parts on core's SIMT machine (lanes.cpp), the barrier parts in a child
// process (barrier.cpp), and what they share (stuck.cpp): records folded into ranges, wait-for
// graphs, the reference model's scenarios, the verdicts and the section's tables. Host-only code.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/child_process.hpp"
#include "core/sanitizer_path.hpp"
#include "core/coresidency.hpp"
#include "core/course/exercise.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/parts/lesson.hpp"
#include "core/report/report.hpp"
#include "core/run_context.hpp"
#include "core/simt/simt.hpp"
#include "techniques/deadlock_demo/scenarios.hpp"

namespace cudasync::deadlock_demo {

// Who was stuck, and on whom: the per-block records folded into ranges ("blocks 0-1055: spun on the
// counter at 1056/2112"), and the wait-for graph (an edge from a waiter to the one it waits for,
// labelled with what it waits on) with the cycle that makes a deadlock. The GPU's records and the
// model's predictions go through the same folding, so the two can be compared range by range.
// Host-only code, no CUDA.
// Consecutive records with the same state and the same description.
struct Range {
  int first = 0, last = 0;
  State state = State::never_started;
  std::string what;  // "spun on the counter at 1056/2112"
  bool operator==(const Range& o) const {
    return first == o.first && last == o.last && state == o.state && what == o.what;
  }
};

// describe(i, record) says what record i did, without times (times differ run to run); records
// whose state and description agree with the one before join its range.
using Describe = std::function<std::string(int, const Record&)>;
std::vector<Range> fold(const std::vector<Record>& records, const Describe& describe);

// A count as text ("1056"), for the sentences that quote one.
inline std::string number_text(long long v) { return std::to_string(v); }
// "blocks 0-1055", "block 7", "lanes 0-31"; `noun` is the singular ("block", "lane", "thread").
std::string span_text(int first, int last, const std::string& noun);
// "blocks 0-1055 spun on the counter at 1056/2112"
std::string range_text(const Range& r, const std::string& noun);
// The ranges joined with "; ".
std::string ranges_text(const std::vector<Range>& rs, const std::string& noun);
// How many records the ranges in state `s` cover.
int count_in(const std::vector<Range>& rs, State s);

// A wait-for graph. Nodes are whatever waits (a block, a lane, a range of them); an edge a -> b
// says a cannot go on until b does something (`on` says what).
struct WaitGraph {
  struct Edge {
    int from = 0, to = 0;
    std::string on;
  };
  std::vector<std::string> nodes;
  std::vector<Edge> edges;

  int add_node(const std::string& name);  // returns its index; an existing name returns the same index
  void add_edge(int from, int to, const std::string& on);
  // The nodes around one cycle, in order (the first is not repeated at the end); empty when the
  // graph has none. Deterministic: starts from the lowest node on a cycle.
  std::vector<int> find_cycle() const;
  // "block 0 -> block 1 -> block 0"; long cycles are shortened: "lane 0 -> lane 1 -> lane 2 -> ... ->
  // lane 31 -> lane 0 (32 nodes)". "" when there is no cycle.
  std::string cycle_text() const;
};

// A run of core's SIMT machine (core/simt/simt.hpp) as deadlock-demo reads it: per lane a record
// like the ones the GPU's lanes write (finished, or stuck on what, having read what), and at a
// deadlock the wait-for graph: a lane spinning on a lock waits for the lane holding it (the word
// holds the holder's index + 1), a lane spinning on a flag waits for the lane that sets it, and in
// lockstep a lane parked at a reconvergence point waits for the lanes its warp is running.
struct ModelRun {
  simt::Result result;
  std::string noun = "lane";        // "block" where each lane is a block of one thread
  // Per lane: finished, or (deadlock) gave_up with `on` = the waited word's id and `seen` = the
  // value it last read; a lane parked at a reconvergence point has on = -1 and seen = that pc.
  std::vector<Record> records;
  WaitGraph graph;                  // lane level, at the deadlock
  std::vector<std::string> waits;   // the graph folded: "lanes 1-31 wait for lane 0: lock, which it holds (read 1)"

  bool completed() const { return result.completed(); }
  bool deadlock() const { return result.deadlock(); }
  long long word(const std::string& name) const { return result.word(name); }
};

// Runs `m`, tracing lanes 0..trace_lanes-1 for `trace_rows` steps (0: no trace).
ModelRun run_model(const simt::Machine& m, int trace_lanes = 0, int trace_rows = 0);

// "lane 0", "lanes 1-3, 5": the lanes of a set, with the run's noun.
std::string lanes_text(const std::string& noun, const std::vector<int>& lanes);

// The programs deadlock-demo's lane-level parts run on core's SIMT step machine (core/simt/simt.hpp):
// warp-spinlock's CAS lock and its cycle of flags, lock-order's two blocks. Programs only: the
// machine runs them (lockstep or independent), the trace functions read the runs. The words a
// lane spins on are marked (Instr::wait), and each word's id is what a record's `on` says for it:
// a lock's number, a flag's owner.
// warp-spinlock: `lanes` lanes of one warp each take the CAS lock once (the lock word holds the
// holder's lane + 1), add one to the counter, release.
simt::Machine spinlock_machine(simt::Scheduling s, int lanes);
// The wait-for cycle inside a warp: lane i waits for lane i+1's flag (mod lanes), then sets its own.
simt::Machine ring_machine(simt::Scheduling s, int lanes);

// The reference model of deadlock-demo: for each scenario, the schedule that leads to the deadlock,
// step by step; the wait-for graph at that point (who waits for whom, on what) and its cycle; the
// blocks or lanes predicted stuck, as records the GPU's records are folded beside; and the fix
// run to completion. The grid scenarios are modelled block range by block range against the
// co-residency limit (the occupancy API's on a GPU, an H100's without one); the lane scenarios run
// their programs (lanes.cpp) on core's SIMT machine. Host-only code, no CUDA.
// What the scenarios' models share (stuck.cpp): a record as the model predicts it, and the words of
// a record, the same in every scenario for "late" and "never started" (what a finished record did
// and on what a stuck one gave up differ).
Record rec(State s, int on = -1, long long seen = 0);
Describe describe_as(std::string finished, std::function<std::string(const Record&)> gave_up);
std::string blocks_text(int first, int last);  // "blocks 0-1055"
// A lane parked at a reconvergence point (on < 0), else what it spun on.
std::string parked_or(const Record& r, const std::string& spun);

struct Step {
  std::string who;
  std::string what;
};

struct ScenarioModel {
  std::vector<Step> steps;         // the schedule that leads to the deadlock (or to completion)
  bool deadlock = false;
  WaitGraph graph;                 // at the deadlock
  std::vector<std::string> waits;  // the graph in words, one line per group of waiters
  std::vector<Record> records;     // predicted, one per block / lane / thread
  std::vector<Step> fix_steps;     // the fix, run to completion
  bool fix_completes = false;
  std::string fix_result;
};

// The co-residency a model run assumes: an H100 (132 SMs), a kernel of 256 threads and at most 32
// registers per thread (what the grid kernels need): 8 blocks per SM, 1056 at once.
Coresidency model_coresidency();

// grid-oversubscribed: the counter barrier over `blocks` blocks with `c` resident at once.
ScenarioModel grid_barrier_model(int blocks, const Coresidency& c);
Describe barrier_describe(int blocks);

// producer-before-consumer: block b waits for block b + 1's flag; the fix orders by ticket.
ScenarioModel chain_model(int blocks, const Coresidency& c);
Describe chain_describe();

// warp-spinlock: the lock in one warp under both schedulers (32 lanes), the cycle between lanes
// (32 lanes), and 4-lane traces for the report.
struct WarpModel {
  ModelRun lock_lockstep, lock_independent;  // 32 lanes
  ModelRun ring_lockstep, ring_independent;  // 32 lanes
  std::vector<ModelRun> lock_traces;         // 4 lanes, the schedulings asked for
  ModelRun ring_trace;                       // 4 lanes, independent
};
WarpModel warp_model(const std::vector<simt::Scheduling>& traces);
Describe ring_describe();

// lock-order: the AB/BA run and the fix (2 iterations) on the SIMT machine, blocks as lanes.
struct LockOrderModel {
  ModelRun broken, fixed;
  ScenarioModel m;  // steps from the broken run, its graph, records; the fix
};
LockOrderModel lock_order_model();
Describe lock_order_describe();

// divergent-syncthreads and syncwarp-mask: the barrier as the programming guide specifies it (it
// completes when every thread it names has arrived), and the rescue. `present` threads of the
// block (lanes of the warp) reach it.
// BarrierVariant::if_else: the others call a second __syncthreads() at once; nobody waits for a
// thread that is not coming, but one barrier has two instructions, which the guide does not allow.
ScenarioModel barrier_model(bool syncwarp, int present, BarrierVariant variant = BarrierVariant::rescue);
// The child's observation as records (`seen` says which of these it was):
//   present, finished: 1 left only after the others began their barrier call, 0 left before
//   present, gave up:  3 arrived and never left (the kernel hung)
//   absent, finished:  2 saw the flag instead (the others got through without them);
//                      7 (if / else) called the else branch's barrier and left it
//   absent, gave up:   0 gave up at the deadline and rescued; 5 rescued and never left the rescue;
//                      4 stopped running before the deadline (last seen spinning at end_ns)
std::vector<Record> barrier_records(const BarrierObservation& o);
Describe barrier_child_describe(bool syncwarp, BarrierVariant variant = BarrierVariant::rescue);

// The barrier parts (divergent-syncthreads, syncwarp-mask) run in a child process: a hardware
// barrier has no deadline, and what it does when only part of a block (or warp) reaches it is
// undefined, so whatever it does happens to the child's CUDA context, never this one's. This binary,
// started by core (core/parts/child.hpp) as `deadlock-demo --child <part> --child-out FILE ...`,
// runs the kernels and its own health check and writes what it saw into FILE; the parent waits with
// a host timeout. The same child runs under `compute-sanitizer --tool synccheck` for --sanitize.
// Host-only code, no CUDA.
//
//   ok
//   case
//   threads 64
//   present 32
//   variant 0
//   deadline_ns 50000000
//   hung 0
//   watched_ms 51
//   arrive_ns 1520,1533,...
//   leave_ns 50001200,...
//   progress_ns -1,...,49990100
//   state 1,1,...,3
//   case
//   ...
//   health ok health_kernel<<<4, 256>>> ...      ("health fail ..." or "health none ..." when hung)
// `health` is the child's own check after its kernels; not run (ran == false) when one hung.
std::string format_observations(const std::vector<BarrierObservation>& cases, const Health& health);
std::string format_child_error(const std::string& message);  // "cuda_error <message>"

struct ChildOutcome {
  enum class Status { ok, cuda_error, timeout, no_answer };
  Status status = Status::no_answer;
  std::vector<BarrierObservation> seen;  // ok: one per case run, the last one possibly hung
  Health health;                         // ok: the child's health check after its kernels
  std::string message;      // cuda_error: the error; timeout / no_answer: what happened to the child
  double seconds = 0.0;     // the child's wall time, CUDA start-up included
};
const char* to_string(ChildOutcome::Status s);
// Reads the child's file into `out` (status ok or cuda_error); false when it is neither.
bool parse_child_output(const std::string& text, ChildOutcome& out);
ChildOutcome child_outcome(const ChildResult& r);

// How long the parent waits for a child: CUDA start-up, the deadline, and room for a slow machine.
std::chrono::milliseconds child_timeout(int deadline_ms, bool sanitized);
// How long past the deadline the child's own watchdog waits for a kernel before it calls it hung:
// the rescue takes microseconds (a kernel that is not hung ends within 0.01 ms of the deadline on
// the H100, the times in each case's table), so 150 ms leaves room for a GPU shared by other
// processes; under compute-sanitizer everything is slower.
inline constexpr int kChildGraceMs = 150;
inline constexpr int kSanitizedGraceMs = 5000;

// The lesson's options a barrier child gets (core adds the rest: parts::child_args):
// "--deadline-ms N --child-grace-ms G".
std::vector<std::string> barrier_child_options(int deadline_ms, bool sanitized);

// The divergent-syncthreads child under synccheck: its output (the sanitizer's log) and exit.
struct SanitizerRun {
  bool found = false;
  std::string tool;       // the compute-sanitizer that ran
  std::string looked;     // where it looked, when not found
  std::string command;    // what was run
  ChildResult result;     // exit status of compute-sanitizer
  std::string log;        // its report (--log-file)
  std::string summary;    // its "ERROR SUMMARY: N errors" line, "" if none
};

// Starts the sanitizer run of the divergent-syncthreads child; finish() waits for it. Starting
// throws std::runtime_error when the process cannot be started.
class SanitizerChild {
 public:
  SanitizerChild(const std::string& sanitizer, const RunContext& ctx, int deadline_ms);
  ~SanitizerChild();
  SanitizerChild(const SanitizerChild&) = delete;
  SanitizerChild& operator=(const SanitizerChild&) = delete;
  SanitizerRun finish();

 private:
  std::string tool_, command_, log_path_;
  std::unique_ptr<ChildProcess> child_;
};

// Verdicts on what the GPU did against what the reference model predicts, and on the fixes: pure
// functions of the records, tested directly (tests/techniques/deadlock_demo/deadlock_demo_judge_test
// .cpp). The parts only show them.
using report::Verdict;

// The GPU's records and the model's, folded into ranges by the same `describe`, range by range:
// "blocks 0-1055 spun on the counter at 1056/2112; ..." or "GPU: ... | model: ...".
Verdict stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model, const Describe& describe,
                        const std::string& noun);

// The deadlock ended by its deadline and every block or lane said where it was: every record was
// written (nobody "never started"), some waiter gave up, and the kernel's timed-out flag is set.
// "2 blocks gave up; the last at 50.012 ms (deadline 50 ms)".
Verdict ended_at_deadline(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun);

// What a run that must complete says when a waiter reached --deadline-ms instead: a correct kernel
// slowed down (compute-sanitizer, a GPU shared with other work) needs a longer deadline. Keys of the
// lesson's catalog: say(kGaveUpAtDeadline).
inline constexpr const char* kGaveUpAtDeadline = "judge.block-gave-up-at-deadline";
inline constexpr const char* kLaneGaveUpAtDeadline = "judge.lane-gave-up-at-deadline";

// A launch that must complete did, with its result checked: the result, or "a block gave up".
Verdict completed(const GridRun& run);
// cudaLaunchCooperativeKernel with a grid that cannot be resident: refused with
// cudaErrorCooperativeLaunchTooLarge (720), and no block ran.
Verdict cooperative_refused(const CoopRun& c);
// With a grid that fits: launched, completed, result right.
Verdict cooperative_completed(const CoopRun& c);
// What the cooperative launch did, in words: "ran: <result>" or "<name> (<code>): <text>".
std::string cooperative_outcome(const CoopRun& c);

// The model's own checks: a predicted deadlock has a cycle in its wait-for graph; the fix completes.
Verdict model_cycle(const ScenarioModel& m);

// warp-spinlock on the GPU: no lane gave up and the counter is every lane's every acquisition.
Verdict lock_count_exact(const LaneRun& run);
// lock-order's fix: both counters (each guarded by both locks) hold every round of both blocks.
Verdict fix_counts_exact(const LockOrderRun& run);

// producer-before-consumer's fix: how many blocks drew the ticket equal to their hardware index
// (the order in which this GPU started the blocks).
int tickets_in_order(const std::vector<int>& tickets);

// A barrier case: did this GPU do what the barrier as specified would do (the model's records)?
bool as_specified(const BarrierObservation& seen, const ScenarioModel& model, const Describe& describe);
// The child ended by itself (it answered, or its kernel stopped with an error), not by this
// process's timeout.
Verdict child_ended(const ChildOutcome& c);

// The pieces every part's section is built from: the model's schedule as a table, its wait-for
// graph and predicted stuck set as facts, the GPU's records folded into ranges with their times,
// the health check, a launch time. Verdicts come from the judge above.
// The schedule: step, who, what.
report::Table steps_table(const std::vector<Step>& steps, const std::string& id, const std::string& title);

// The model's facts: the wait-for graph in words ("model-waits-1", ...), its cycle ("model-cycle")
// and how many nodes it has ("model-cycle-nodes"), the predicted stuck set ("model-predicted").
void add_model_facts(report::Section& s, const ScenarioModel& m, const Describe& describe, const std::string& noun);
// The model's checks: the deadlock it predicts has a cycle ("model-deadlocks", when
// `expect_deadlock`); the fix completes ("model-fix-completes").
void add_model_checks(report::Section& s, const ScenarioModel& m, bool expect_deadlock);

// What the GPU did: its ranges table (`table_id`) and the stuck set in words (`fact_id`).
void add_gpu_ranges(report::Section& s, const std::vector<Record>& records, const Describe& describe,
                    const std::string& noun, const std::string& table_id, const std::string& title,
                    const std::string& fact_id, const std::string& fact_title);

// The health check's fact and check (id "health"): "health check after <part>: this process still
// runs kernels". Nothing when it did not run.
void add_health(report::Section& s, const std::optional<Health>& h, const std::string& after);

// A launch time in ms: one sample on a GPU, "needs a GPU" in a model run.
report::Measurement launch_time(const std::string& id, const std::string& title, std::optional<double> ms,
                                const std::string& note = "");

// "<<<2112, 256>>>"
std::string grid_text(int blocks, int threads);
// "0.020 ms", for prose (notes, check details)
std::string ms_text(double ms);

// The SIMT model's runs as a report shows them (warp-spinlock, lock-order): a run's verdict in
// words, the program it ran, its step-by-step trace (what each traced lane did, in this lesson's
// words), its wait-for graph.
// "completes in 129 steps, counter 32 of 32", "deadlock: the state after step 4 is the state after
// step 2", "undecided after N steps".
std::string verdict(const ModelRun& r);

// What one traced lane did in one step: "CAS lock: 0, takes it", "CAS lock: 1 (held by lane 0)",
// "spins", "leaves the loop", "waits at 2", "releases lock", "exits", "exited".
std::string event_text(const ModelRun& r, const simt::Event& e);
// The memory after a step, words of one family ("flag[0]", "flag[1]", ...) as one item with the
// traced lanes' values: "lock 1, counter 0", "flag 0,0,0,0".
std::string memory_text(const ModelRun& r, const std::vector<long long>& memory);
// A step's note: the warp's divergence ("lanes 1-3 go to 0, lane 0 to 2; they meet again at 2")
// and the repeat that makes the deadlock ("the same state as after step 2: it repeats forever").
std::string row_note(const ModelRun& r, const simt::Row& row);

// The deadlock-demo lesson as core runs it: its options, what one run shares between parts (the
// barrier children, started first so that they run while this process does the other parts), and
// its part table.
inline constexpr const char* kLessonId = "deadlock-demo";

struct Options {
  std::optional<int> blocks;         // grid-oversubscribed, producer-before-consumer
  int deadline_ms = kDefaultDeadlineMs;
  std::optional<std::string> model;  // lockstep | independent: warp-spinlock's trace
  bool sanitize = false;             // run compute-sanitizer synccheck on the divergent-syncthreads child
  int child_grace_ms = kChildGraceMs;  // hidden: a barrier child's watchdog, past the deadline
};

// A barrier child started by the parent: the process, or why it could not be started.
struct StartedChild {
  std::unique_ptr<ChildProcess> process;
  std::string error;
};

// One run's shared state.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  const RunContext& ctx;
  Options options;
  std::string child_out;                // a child's answer file (the child mode only)
  std::vector<simt::Scheduling> traces;  // warp-spinlock's traces; empty when it does not run
  StartedChild sync_child, warp_child;  // divergent-syncthreads, syncwarp-mask (GPU runs)
  std::unique_ptr<SanitizerChild> sanitizer;  // --sanitize, when compute-sanitizer was found and started
  std::string sanitizer_missing;        // --sanitize without it: where it looked, or why it did not start

  unsigned long long deadline_ns() const;
};

const parts::Lesson<Options, Run>& lesson();

// The parts, by topic.
report::Section grid_part(Run& run);        // grid-oversubscribed (grid.cpp)
report::Section chain_part(Run& run);       // producer-before-consumer (grid.cpp)
report::Section warp_part(Run& run);        // warp-spinlock (lanes.cpp)
report::Section lock_order_part(Run& run);  // lock-order (lanes.cpp)
report::Section barrier_part(Run& run, bool syncwarp);  // divergent-syncthreads, syncwarp-mask (barrier.cpp)
// The barrier children's side (barrier.cpp): runs the cases on the GPU and returns the answer.
std::string barrier_child(Run& run, bool syncwarp);

// deadlock-demo's place in the course: its tour stop and its exercises (core/course/exercise.hpp).
const course::LessonCourse& course();

}  // namespace cudasync::deadlock_demo
