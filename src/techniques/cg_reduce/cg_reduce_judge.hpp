#pragma once
// Verdicts on cg-reduce's sums: a GPU sum against the model's bits or the atomic-order bound, two
// runs against each other, a sum against Higham's bound on the exact sum, a bench row at every
// size, and a trace word by word. Pure functions, tested directly
// (tests/techniques/cg_reduce/cg_reduce_judge_test.cpp); the parts only show them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

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
};

struct Verdict {
  bool passed = false;
  std::string detail;
};

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
// publishes no order). error_bound_title says which: "relative error within gamma_d".
std::string error_bound_title(Kernel k, Dtype d);
Verdict error_bound(Kernel k, Dtype d, double sum, double reference, std::int64_t depth);
// Cub's Reduce(cuda::std::plus<>{}, 0) gives Sum's bits.
Verdict reduce_plus_agrees(const Sum& reduce, const Sum& sum);

// The ladder's "model" column: "bit-exact" / "MISMATCH" for a fixed order, "in bound" / "OUT"
// for atomics; nullopt without a GPU sum or a model. `agrees` is false for MISMATCH and OUT.
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

// The trace: rows i of the shared tree whose live words differ between the GPU and the model
// (word i is live after the step with offset o while i < o), and lanes of a lane table (steps x 32)
// whose values differ. Bits are compared, not values.
template <typename T>
std::vector<int> differing_tree_words(const std::vector<T>& gpu, const std::vector<T>& model, int block);
template <typename T>
std::vector<int> differing_lanes(const std::vector<T>& gpu, const std::vector<T>& model, int steps);

}  // namespace cudasync::cg_reduce
