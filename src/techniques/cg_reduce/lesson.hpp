#pragma once
// The cg-reduce lesson as core runs it: its options, what one run shares between parts (the
// inputs, their device copies, every kernel's result), and its part table (lesson.cpp): one part
// per rung of the ladder (rungs.cpp), the trace (trace.cpp), the ladder's summary (finish) and the
// --bench sweep with its cost model (bench.cpp); and the reference model every one of them replays
// (orders.cpp).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/model.hpp"
#include "core/course/exercise.hpp"
#include "core/parts/lesson.hpp"
#include "core/words/words.hpp"
#include "techniques/cg_reduce/ladder.hpp"

namespace cudasync::cg_reduce {

// ---------------------------------------------------------------- the reference model (orders.cpp)
// The inputs, their exact sum, and every deterministic rung's float order, replayed on the CPU
// addition by addition, so that a GPU result can be compared bit for bit. IEEE 754 addition is
// commutative (a + b and b + a round the same), so only the grouping of the additions matters; the
// model groups them exactly as each kernel does. Rungs that end with atomicAdd have no fixed order:
// the model gives one possible order (blocks 0, 1, 2, ...) and a bound that covers every other one.

// n values in (0, 1): odd multiples of 2^-24 (float) or 2^-53 (double), from splitmix64 seeded by
// `seed`. Never zero; every value is exact in its type, so the exact sum is known (exact_sum).
template <typename T>
std::vector<T> make_inputs(std::int64_t n, std::uint64_t seed);

// The exact sum of `x` (integer arithmetic on the inputs' bits), rounded once to fp64.
template <typename T>
double exact_sum(const std::vector<T>& x);

// Unit roundoff u: 2^-24 for float, 2^-53 for double.
double unit_roundoff(Dtype d);

// gamma_d = d u / (1 - d u), Higham's bound: any summation whose longest path from an input to
// the result has d additions is off by at most gamma_d times the sum of |x_i| ("Accuracy and
// Stability of Numerical Algorithms", 2nd ed., section 4.2). Negative when d u >= 1 (no bound).
double gamma_bound(std::int64_t depth, double u);

// --- the orders -------------------------------------------------------------------------------

// s_y[tid] += s_y[tid + offset] for offset = size/2 ... 1 (tid < offset), in place; returns s[0].
// The shuffle ladders of rungs 3-4 and cg::reduce give lane 0 exactly this value.
template <typename T>
T tree_sum(T* s, int size);

// Rungs 1-4: one element per thread, zero past the end, one tree per block: ceil(n / block) sums.
template <typename T>
std::vector<T> block_tree_sums(const T* x, std::int64_t n, int block);

// atomicAdd of the block sums in block order onto 0: one of the orders the GPU may take.
template <typename T>
T fold_in_order(const std::vector<T>& v);

// Rung 5's kernel (Fan 10.5.1 reduce_cp) for one launch: thread t = bid * block + tid adds
// x[t], x[t + S], x[t + 2S] ... (S = grid * block) into y = 0, then one tree per block.
template <typename T>
std::vector<T> reduce_cp(const T* x, std::int64_t n, int grid, int block);

// Both launches: reduce_cp<<<grid, block>>>, then reduce_cp<<<1, 1024>>> over the grid's sums.
template <typename T>
T two_pass(const T* x, std::int64_t n, int grid, int block);

// The vector kernel's first launch: per thread W accumulators (W = 4 floats or 2 doubles) over
// vectors t, t + S, ...; y = (a0 + a1) + (a2 + a3) (float) or a0 + a1 (double); the n % W
// leftover elements go to threads 0, 1, ...; then warp_first_block_sum per block.
template <typename T>
std::vector<T> vector_partials(const T* x, std::int64_t n, int grid, int block);

// Each warp's 32 values by tree (shuffles 16 ... 1), then the block's warp sums, padded with
// zeros to 32, by tree again: lane 0 of warp 0 ends with this.
template <typename T>
T warp_first_block_sum(const T* y, int block);

// Rung 7: grid-stride y per thread, warp_first_block_sum per block, grid.sync(), then block 0:
// thread tid adds partial[tid], partial[tid + block] ... and warp_first_block_sum again.
template <typename T>
T grid_sync_sum(const T* x, std::int64_t n, int grid, int block);

// --- per kernel --------------------------------------------------------------------------------

template <typename T>
struct ModelResult {
  T sum{};                    // the model's result (for atomic rungs: the block-order fold)
  bool fixed_order = true;    // false: atomics, the GPU may add the block sums in another order
  std::vector<T> block_sums;  // atomic rungs: what the blocks add (the GPU's are bit-identical)
  bool available = true;      // false for CUB: its order is CUB's own, the model does not replay it
};

template <typename T>
ModelResult<T> model_kernel(Kernel k, const std::vector<T>& x, const Plan& plan);

// Host bytes model_kernel allocates for kernel k beside the input of n elements of `elem` bytes:
// per-thread accumulators (min(grid x block, n) of them for a grid-stride kernel, so a --grid as
// large as n makes them as large as the input), per-block sums and a block's scratch. A run's
// peak is the input plus the largest of these over the kernels it replays.
std::uint64_t model_working_bytes(Kernel k, std::int64_t n, const Plan& plan, std::size_t elem);

// The longest chain of additions from an input to the result for kernel k (see gamma_bound).
// 0 for CUB, whose order is not published.
std::int64_t error_depth(Kernel k, std::int64_t n, const Plan& plan, Dtype dtype);

// Bound on |GPU - model| for an atomic rung: both fold the same block sums, in two orders, so each
// lies within gamma_{G-1} * sum|b_i| of their exact sum.
template <typename T>
double atomic_order_bound(const std::vector<T>& block_sums);

// CUB publishes no order: it is checked against the exact sum with this relative tolerance.
double cub_tolerance(Dtype d);

// --- plans and traces --------------------------------------------------------------------------

// Without a GPU: grids as on an H100 (132 SMs, 2048 threads and 32 blocks per SM).
inline constexpr int kAssumedSms = 132;
Plan default_plan(int block);
int blocks_for(std::int64_t n, int block);  // ceil(n / block)

// How many elements thread t of a grid-stride loop over n elements with stride S adds.
std::int64_t elements_of_thread(std::int64_t t, std::int64_t n, std::int64_t stride);

template <typename T>
Trace<T> model_trace(const std::vector<T>& x, const Plan& plan, int block_index, int warp);

const char* kernel_id(Kernel k);    // "shared-atomic": the id of its checks, measurements and bench row
const char* kernel_rung(Kernel k);  // "1" .. "8", "5'" for --bench's candidate
std::string kernel_name(Kernel k);  // "shared + __syncthreads", in the run's language
std::string kernel_title(Kernel k); // "1 shared + __syncthreads": the rung and the name
const char* dtype_name(Dtype d);    // "float", "double"

// ---------------------------------------------------------------- verdicts (rungs.cpp)
// A GPU sum against the model's bits or the atomic-order bound, two runs against each other, a sum
// against Higham's bound on the exact sum, a bench row at every size, and a trace word by word.

// A sum as the report carries it: its value (a float converts exactly), its bits in its own type.
struct Sum {
  double value = 0.0;
  std::uint64_t bits = 0;
  Dtype dtype = Dtype::f32;
  std::string text() const;       // every digit needed to get the bits back (%.9g / %.17g)
  std::string with_bits() const;  // "8389143 (0x4b00038f)"
};
Sum sum_of(float v);
Sum sum_of(double v);
Sum sum_in(Dtype d, double v);  // v (from the GPU, in double) as a sum of type d

// One kernel's results, from the model and (in a GPU run) the GPU.
struct KernelRun {
  Kernel kernel = Kernel::shared_atomic;
  // model
  bool model_available = true;  // false for CUB
  bool fixed_order = true;
  Sum model;
  double order_bound = -1.0;  // atomic rungs: bound on |GPU - model|; < 0: none
  std::int64_t depth = 0;     // longest addition chain (gamma_bound)
  // GPU
  std::optional<Sum> gpu;
  std::optional<Sum> gpu_again;        // a second call, for run-to-run equality
  std::vector<double> ms;              // event time per call
  std::vector<double> wrapper_us;      // two_pass_fixed_grid and static_buffer: the whole reduce()
  std::optional<Sum> cub_reduce_plus;  // cub_sum: DeviceReduce::Reduce with cuda::std::plus<>
  std::optional<std::string> waived;   // grid-sync refused: the reason

  // The sum the tables show: the GPU's where there is one, else the model's (none for CUB on the
  // model).
  std::optional<Sum> shown() const {
    if (gpu) return gpu;
    return model_available ? std::optional<Sum>(model) : std::nullopt;
  }
};

using report::Verdict;

std::size_t type_bytes(Dtype d);
double gb_per_s(std::int64_t n, Dtype d, double ms);
double relative_error(double sum, double reference);

// A fixed-order rung: the GPU's bits are the model's.
Verdict bits_agree(const Sum& gpu, const Sum& model);
// Two calls gave the same bits.
Verdict same_bits_twice(const Sum& first, const Sum& second);
// An atomic rung: |GPU - model| within the bound that covers every order of its atomics (no bound,
// and so a pass, when bound < 0).
Verdict within_order_bound(const Sum& gpu, const Sum& model, double bound);
// The relative error of `sum` against the exact sum: within gamma_depth, or CUB's tolerance (CUB
// publishes no order). error_bound_title says which: "rounding error within gamma_d, the bound for d additions in a row".
std::string error_bound_title(Kernel k, Dtype d);
Verdict error_bound(Kernel k, Dtype d, double sum, double reference, std::int64_t depth);

// The GPU's sum against the model's: bits_agree for a fixed order, within_order_bound for atomics;
// nullopt without a GPU sum or a model.
std::optional<Verdict> model_verdict(const KernelRun& r);
// The ladder's "model" column, from model_verdict: "bit-exact" / "MISMATCH" for a fixed order,
// "in bound" / "OUT" for atomics; nullopt without one. `agrees` is false for MISMATCH and OUT.
std::optional<std::string> agreement_word(const KernelRun& r, bool& agrees);

// One cell of a bench row with a GPU sum: the size as shown ("2^20"), the sum and its bound.
struct BenchSum {
  std::string size;
  double sum = 0.0;
  double reference = 0.0;
  std::int64_t depth = 0;
};
// Every size within its error bound (gamma_depth, or CUB's tolerance).
Verdict every_size_in_bound(Kernel k, Dtype d, const std::vector<BenchSum>& cells);

// The trace: whether row i of the shared tree has the model's live words on the GPU (word i is
// live after the step with offset o while i < o), and whether a lane of a lane table (steps x 32)
// has the model's values. Bits are compared, not values.
template <typename T>
bool tree_word_agrees(const std::vector<T>& gpu, const std::vector<T>& model, int block, int i);
template <typename T>
bool lane_agrees(const std::vector<T>& gpu, const std::vector<T>& model, int steps, int lane);

// ---------------------------------------------------------------- the lesson (lesson.cpp)

// A sentence of this lesson's catalog (lessons/cg-reduce/words.json) in the run's language.
inline std::string say(std::string_view key, const words::Args& args = {}) {
  return words::say("cg-reduce", key, args);
}

inline constexpr std::int64_t kDefaultN = std::int64_t{1} << 24;   // 64 MiB of floats: more than an H100's L2
inline constexpr std::int64_t kMaxN = std::int64_t{1} << 30;       // the book's kernels index with int
inline constexpr std::int64_t kTraceMaxN = std::int64_t{1} << 24;  // the model replays every traced kernel
inline constexpr int kTraceMaxBlock = 256;  // the shared-tree table has one row per word
inline constexpr int kMinLog2Size = 10, kMaxLog2Size = 30;

struct Options {
  std::optional<std::int64_t> n;
  int block = 128;
  std::optional<std::string> dtype;  // default float; --bench without it sweeps both
  std::optional<int> trace_block;
  std::optional<int> trace_warp;
  std::optional<int> grid;           // the grid-sync rung's grid
  std::vector<int> sizes;            // --bench: log2 of the sizes (default 20 ... 28)
};

// The problem every part of a plain run works on.
struct Problem {
  Dtype dtype = Dtype::f32;
  std::int64_t n = 0;
  Plan plan;
  bool gpu = false;
  double reference = 0.0;  // the exact sum, rounded to fp64
  int copies = 1;          // device copies timing rotates through
  int reps = 0;            // timed calls per kernel
};

// One run's shared state. A plain run draws the input once (in its type) and, on a GPU, uploads
// it once; each rung part leaves its kernels' results in `runs`, which the ladder reads back.
struct Run {
  Run(const Options& o, const RunContext& run_ctx, const parts::Selection& selection);
  Options options;
  const RunContext& ctx;
  bool bench = false;             // --bench: the sweep runs instead of the parts
  Problem problem;
  bool cooperative = true;        // cudaDevAttrCooperativeLaunch (assumed on the model)
  std::vector<float> xf;          // the input when problem.dtype is float
  std::vector<double> xd;         // the input when it is double
  std::shared_ptr<GpuInput> gpu;  // its device copies, on a GPU
  std::map<int, KernelRun> models;  // the model's results, by order class (rungs that share one)
  std::vector<KernelRun> runs;      // every kernel a part ran, in ladder order
};

const parts::Lesson<Options, Run>& lesson();

// The grids for `block` threads per block: the occupancy API on a GPU, an H100 assumed on the
// model; `grid` (--grid) overrides the grid-sync rung's. `cooperative`: the GPU takes cooperative
// launches (true on the model).
Plan plan_for(int block, std::optional<int> grid, const RunContext& ctx, Dtype dtype, bool& cooperative);

// Device copies of an input of `bytes` to rotate through: enough to span 4 x the L2 cache, at
// most 64, never more than half the free memory.
int rotation_copies(std::int64_t bytes, const RunContext& ctx, std::size_t free_bytes);

// The input plus the largest partial-sum array must fit in device memory: else UsageError,
// naming `what` ("--n 1000", "--bench size 2^28").
void check_device_memory(std::int64_t n, std::size_t elem, const Plan& p, std::size_t free_bytes,
                         const RunContext& ctx, const std::string& what);

// The rung (the part id, "two-pass") that runs kernel k of the ladder.
const char* rung_of(Kernel k);

// The --bench sizes (log2): --sizes sorted without repeats, or 20 ... 28.
std::vector<int> bench_sizes(std::vector<int> sizes);

// The parts.
report::Section rung_part(Run& run, const std::string& rung);  // rungs: shared ... cub
report::Section trace_part(Run& run);                          // trace
void ladder_finish(Run& run, report::Report& report);          // ladder: the rungs side by side
std::vector<report::Section> bench_sweep(Run& run);            // bench: GB/s by size, x CUB

// The sections the parts build from results, apart from running them (tests feed made-up GPU
// results): one rung's kernels, and every kernel that ran side by side.
report::Section rung_section(const std::string& rung, const std::vector<KernelRun>& runs, const Problem& p);
report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& p);

// ---------------------------------------------------------------- --bench's cost model (bench.cpp)
// The time of one call of a reduction (cg-reduce's --bench), term by term, and from it GB/s =
// bytes / time. A call is its launches (timed with events, as the bench times it: a launch costs
// the host's submission and the GPU's start), the bytes it reads (what a plain streaming read of
// the same input costs, less that read's own launch), and what a rung adds on top:
//
//   atomic rungs (one block per 128 elements, one atomicAdd each, to one word):
//     launch   launch-memset-1                 the memset of the target, then the kernel
//     bytes    read(n) - launch-1              n x 4 bytes from DRAM
//     atomics  max(0, blocks x per-block - bytes)  the same-address atomics, beyond the bytes they overlap
//   two-pass rungs: launch-2 + bytes + a second pass over the grid's partial sums (ceil(grid / 1024)
//   dependent L2 loads per thread and the block's tree).
enum class ReduceDesign : int {
  atomic = 0,  // rungs 1-4: a block per `block` elements, each ends in atomicAdd to one word (after a memset)
  two_pass,    // rungs 5-6: a first launch of `grid` blocks writes partial sums, <<<1, 1024>>> adds them
  grid_sync,   // rung 7: one cooperative launch, grid.sync(), block 0 adds the partials
  cub,         // cub::DeviceReduce::Sum: two launches, as two-pass
  one_pass,    // one launch: the last block to finish (a ticket atomic) adds the partials
};

struct ReduceShape {
  std::int64_t n = 0;
  int elem_bytes = 4;
  int block = 128;  // threads per block of the first pass
  int grid = 0;     // blocks of the first pass (two-pass, grid-sync, one-pass)
  std::string at;   // the input's key: "2-24"
  double bytes() const { return static_cast<double>(n) * elem_bytes; }
};

inline constexpr int kDispatchBlocks = 1 << 16;     // the empty-blocks probe
inline constexpr int kAtomicProbeBlocks = 1 << 18;  // the atomic-blocks probe

// The streaming read of the bench's own input (the caller measures it: Probe::stream_read).
cost::Need read_need(const ReduceShape& s);
std::vector<cost::Need> reduce_needs(ReduceDesign d, const ReduceShape& s);
// ns per call; GB/s = s.bytes() / ns.
cost::Prediction predict_reduce(ReduceDesign d, const ReduceShape& s, const cost::Primitives& p);

// cg-reduce's place in the course: its tour stop and its exercises, from lessons/cg-reduce/lesson.json
// (core/course/manifest.hpp); its kernel exercises are rows there too (core/course/kernel_check.hpp).
const course::LessonCourse& course();  // lesson.cpp

}  // namespace cudasync::cg_reduce
