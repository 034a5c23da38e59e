#pragma once
// The reference model: the inputs, their exact sum, and every deterministic rung's float order,
// replayed on the CPU addition by addition, so that a GPU result can be compared bit for bit.
// IEEE 754 addition is commutative (a + b and b + a round the same), so only the grouping of the
// additions matters; the model groups them exactly as each kernel does. Rungs that end with
// atomicAdd have no fixed order: the model gives one possible order (blocks 0, 1, 2, ...) and a
// bound that covers every other one.
#include <cstdint>
#include <string>
#include <vector>

#include "techniques/cg_reduce/cg_reduce.hpp"

namespace cudasync::cg_reduce {

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
// One block adding `count` partial sums: thread tid adds partials[tid], partials[tid + block], ...
// from 0, then warp_first_block_sum (rung 7's block 0, the one-pass candidate's last block).
template <typename T>
T finishing_block_sum(const T* partials, int count, int block);

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

}  // namespace cudasync::cg_reduce
