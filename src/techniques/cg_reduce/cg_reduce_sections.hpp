#pragma once
// Turns model and GPU results into Report sections. No CUDA here; a model run leaves every GPU
// field empty. Sums arrive as doubles (a float converts exactly) with their bits beside them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/cg_reduce/cg_reduce_model.hpp"

namespace cudasync::cg_reduce {

// A sum as the report carries it: its value, its bits in its own type, and its type.
struct Sum {
  double value = 0.0;
  std::uint64_t bits = 0;
  Dtype dtype = Dtype::f32;
  std::string text() const;  // every digit needed to get the bits back (%.9g / %.17g)
};
Sum sum_of(float v);
Sum sum_of(double v);

struct Problem {
  Dtype dtype = Dtype::f32;
  std::int64_t n = 0;
  std::uint64_t seed = 1;
  Plan plan;
  bool gpu = false;
  std::string device;       // "GPU 0, NVIDIA H100 80GB HBM3, 132 SMs, cc 9.0"; empty in a model run
  double reference = 0.0;   // the exact sum, rounded to fp64
  int copies = 1;           // device copies timing rotates through
  int reps = 0;             // timed calls per kernel
};

// One kernel's row, from the model and (in a GPU run) the GPU.
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
  std::optional<Sum> gpu_again;         // a second call, for run-to-run equality
  std::vector<double> ms;               // event time per call
  std::vector<double> wrapper_us;       // two_pass_seed and static_buffer: the whole reduce()
  std::optional<Sum> cub_reduce_plus;   // cub_sum: DeviceReduce::Reduce with cuda::std::plus<>
  std::optional<std::string> waived;    // grid-sync refused: the reason
};

const char* rung_of(Kernel k);  // the --variant name: "shared", "two-pass", ...

report::Section setup_section(const Problem& s);
// One section per --variant (its kernels, in ladder order).
report::Section rung_section(const std::string& variant, const std::vector<KernelRun>& runs, const Problem& s);
// Every kernel side by side: sum, error, agreement, time, GB/s, ratio to CUB.
report::Section ladder_section(const std::vector<KernelRun>& runs, const Problem& s);

template <typename T>
report::Section trace_section(const Trace<T>& model, const std::optional<Trace<T>>& gpu, const Problem& s);

// --bench: one sweep for one dtype.
struct BenchCell {
  std::int64_t n = 0;
  std::vector<double> ms;       // empty: not measured
  std::optional<Sum> gpu;       // the sum of one call
  double reference = 0.0;
  std::int64_t depth = 0;
  std::optional<std::string> waived;
};
struct BenchRow {
  Kernel kernel = Kernel::shared_atomic;
  std::vector<BenchCell> cells;  // one per size, in order
};
report::Section bench_section(Dtype dtype, const std::vector<int>& log2_sizes, const std::vector<BenchRow>& rows,
                              const Problem& s);

double gb_per_s(std::int64_t n, Dtype d, double ms);
double relative_error(double sum, double reference);

}  // namespace cudasync::cg_reduce
