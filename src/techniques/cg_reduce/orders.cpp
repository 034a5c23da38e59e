// The reference model (cg_reduce_lesson.hpp): the inputs, their exact sum, and every deterministic
// rung's float order, replayed addition by addition.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "techniques/cg_reduce/lesson.hpp"

namespace cudasync::cg_reduce {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Bits below the binary point of the inputs: x = k * 2^-kFraction with k odd.
template <typename T>
constexpr int kFraction = std::is_same_v<T, float> ? 24 : 53;

template <typename T>
constexpr int kVectorWidth = 16 / static_cast<int>(sizeof(T));  // float4: 4, double2: 2

int log2_of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// One grid-stride pass: acc[t] = x[t] + x[t + S] + ... in that order, starting from 0, for the
// threads that have at least one element (t < min(S, n)); the others hold 0.
template <typename T>
std::vector<T> grid_stride_accumulate(const T* x, std::int64_t n, std::int64_t stride) {
  std::vector<T> acc(static_cast<std::size_t>(std::min(stride, n)), T(0));
  for (std::int64_t base = 0; base < n; base += stride) {
    const std::int64_t len = std::min(stride, n - base);
    const T* row = x + base;
    for (std::int64_t j = 0; j < len; ++j) acc[static_cast<std::size_t>(j)] += row[j];
  }
  return acc;
}

// The value of thread t of a grid whose per-thread values are `acc` (zero past its end).
template <typename T>
T at_or_zero(const std::vector<T>& acc, std::int64_t t) {
  return t < static_cast<std::int64_t>(acc.size()) ? acc[static_cast<std::size_t>(t)] : T(0);
}

// Per block: copy the block's thread values into s (zero past the end) and reduce with `block_op`.
template <typename T, typename Op>
std::vector<T> per_block(const std::vector<T>& acc, int grid, int block, Op block_op) {
  std::vector<T> out(static_cast<std::size_t>(grid), T(0));
  std::vector<T> s(static_cast<std::size_t>(block));
  const auto live = static_cast<std::int64_t>(acc.size());
  for (int b = 0; b < grid; ++b) {
    const std::int64_t first = static_cast<std::int64_t>(b) * block;
    if (first >= live) break;  // every later block holds zeros only: its sum is +0
    for (int i = 0; i < block; ++i) s[static_cast<std::size_t>(i)] = at_or_zero(acc, first + i);
    out[static_cast<std::size_t>(b)] = block_op(s.data(), block);
  }
  return out;
}

}  // namespace

// --- inputs and the exact sum -----------------------------------------------------------------

template <typename T>
std::vector<T> make_inputs(std::int64_t n, std::uint64_t seed) {
  std::vector<T> x(static_cast<std::size_t>(n));
  std::uint64_t state = seed;
  const T scale = std::ldexp(T(1), -kFraction<T>);  // a power of two: the product is exact
  for (auto& v : x) {
    const std::uint64_t k = (splitmix64(state) >> (64 - kFraction<T>)) | 1u;  // odd: never zero
    v = static_cast<T>(k) * scale;
  }
  return x;
}

template <typename T>
double exact_sum(const std::vector<T>& x) {
  u128 total = 0;
  const T scale = std::ldexp(T(1), kFraction<T>);
  for (const T v : x) total += static_cast<std::uint64_t>(v * scale);
  return std::ldexp(static_cast<double>(total), -kFraction<T>);  // one rounding, to nearest
}

double unit_roundoff(Dtype d) { return d == Dtype::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53); }

double gamma_bound(std::int64_t depth, double u) {
  const double du = static_cast<double>(depth) * u;
  if (du >= 1.0) return -1.0;
  return du / (1.0 - du);
}

// --- the orders -------------------------------------------------------------------------------

template <typename T>
T tree_sum(T* s, int size) {
  for (int offset = size >> 1; offset > 0; offset >>= 1)
    for (int tid = 0; tid < offset; ++tid) s[tid] += s[tid + offset];
  return s[0];
}

template <typename T>
std::vector<T> block_tree_sums(const T* x, std::int64_t n, int block) {
  const int grid = blocks_for(n, block);
  std::vector<T> out(static_cast<std::size_t>(grid));
  std::vector<T> s(static_cast<std::size_t>(block));
  for (int b = 0; b < grid; ++b) {
    const std::int64_t first = static_cast<std::int64_t>(b) * block;
    for (int i = 0; i < block; ++i) s[static_cast<std::size_t>(i)] = first + i < n ? x[first + i] : T(0);
    out[static_cast<std::size_t>(b)] = tree_sum(s.data(), block);
  }
  return out;
}

template <typename T>
T fold_in_order(const std::vector<T>& v) {
  T total(0);
  for (const T b : v) total += b;
  return total;
}

template <typename T>
std::vector<T> reduce_cp(const T* x, std::int64_t n, int grid, int block) {
  const auto acc = grid_stride_accumulate(x, n, static_cast<std::int64_t>(grid) * block);
  return per_block(acc, grid, block, [](T* s, int size) { return tree_sum(s, size); });
}

template <typename T>
T two_pass(const T* x, std::int64_t n, int grid, int block) {
  const std::vector<T> partials = reduce_cp(x, n, grid, block);
  return reduce_cp(partials.data(), grid, 1, kSecondPassBlock)[0];
}

template <typename T>
T warp_first_block_sum(const T* y, int block) {
  std::array<T, kWarpSize> warp_sums{};
  std::array<T, kWarpSize> lanes{};
  for (int w = 0; w < block / kWarpSize; ++w) {
    std::copy(y + w * kWarpSize, y + (w + 1) * kWarpSize, lanes.begin());
    warp_sums[static_cast<std::size_t>(w)] = tree_sum(lanes.data(), kWarpSize);
  }
  return tree_sum(warp_sums.data(), kWarpSize);  // lanes past the last warp hold 0
}

template <typename T>
std::vector<T> vector_partials(const T* x, std::int64_t n, int grid, int block) {
  constexpr int W = kVectorWidth<T>;
  const std::int64_t vectors = n / W;
  const std::int64_t tail = n - vectors * W;
  const std::int64_t stride = static_cast<std::int64_t>(grid) * block;
  // a[c][t]: component c of thread t's accumulator, vectors t, t + S, ... in order.
  const std::int64_t live = std::min(stride, vectors);
  std::vector<std::vector<T>> a(W, std::vector<T>(static_cast<std::size_t>(live), T(0)));
  for (std::int64_t base = 0; base < vectors; base += stride) {
    const std::int64_t len = std::min(stride, vectors - base);
    for (std::int64_t j = 0; j < len; ++j)
      for (int c = 0; c < W; ++c) a[static_cast<std::size_t>(c)][static_cast<std::size_t>(j)] += x[(base + j) * W + c];
  }
  std::vector<T> y(static_cast<std::size_t>(std::max(live, tail)), T(0));
  for (std::int64_t t = 0; t < live; ++t) {
    const auto i = static_cast<std::size_t>(t);
    if constexpr (W == 4) y[i] = (a[0][i] + a[1][i]) + (a[2][i] + a[3][i]);
    else y[i] = a[0][i] + a[1][i];
  }
  for (std::int64_t j = 0; j < tail; ++j) y[static_cast<std::size_t>(j)] += x[vectors * W + j];
  return per_block(y, grid, block, [](T* s, int size) { return warp_first_block_sum(s, size); });
}

namespace {

// One block adding `count` partial sums: thread tid adds partials[tid], partials[tid + block], ...
// from 0, then warp_first_block_sum (rung 7's block 0, the one-pass candidate's last block).
template <typename T>
T finishing_block_sum(const T* partials, int count, int block) {
  std::vector<T> z(static_cast<std::size_t>(block), T(0));
  for (int tid = 0; tid < block; ++tid)
    for (int i = tid; i < count; i += block) z[static_cast<std::size_t>(tid)] += partials[static_cast<std::size_t>(i)];
  return warp_first_block_sum(z.data(), block);
}

}  // namespace

template <typename T>
T grid_sync_sum(const T* x, std::int64_t n, int grid, int block) {
  const auto acc = grid_stride_accumulate(x, n, static_cast<std::int64_t>(grid) * block);
  // Blocks past the data hold +0, and y + 0 == y bit for bit (y >= +0 here): they are skipped,
  // so that a huge --grid costs the model nothing.
  const int live = std::min(grid, blocks_for(static_cast<std::int64_t>(acc.size()), block));
  const std::vector<T> partial =
      per_block(acc, live, block, [](T* s, int size) { return warp_first_block_sum(s, size); });
  return finishing_block_sum(partial.data(), live, block);  // block 0 after grid.sync()
}

// --- per kernel --------------------------------------------------------------------------------

template <typename T>
ModelResult<T> model_kernel(Kernel k, const std::vector<T>& x, const Plan& p) {
  ModelResult<T> r;
  const T* d = x.data();
  const auto n = static_cast<std::int64_t>(x.size());
  switch (k) {
    case Kernel::shared_atomic:
    case Kernel::syncwarp_atomic:
    case Kernel::shfl_down_atomic:
    case Kernel::shfl_xor_atomic:
    case Kernel::tile_shfl_down_atomic:
    case Kernel::cg_reduce_atomic:
      r.block_sums = block_tree_sums(d, n, p.block);
      r.sum = fold_in_order(r.block_sums);
      r.fixed_order = false;
      break;
    case Kernel::two_pass_fixed_grid:
    case Kernel::static_buffer: r.sum = two_pass(d, n, p.seed_grid, p.block); break;
    case Kernel::two_pass_occupancy: r.sum = two_pass(d, n, p.occupancy_grid, p.block); break;
    case Kernel::two_pass_vector: {
      const std::vector<T> partials = vector_partials(d, n, p.vector_grid, p.block);
      r.sum = reduce_cp(partials.data(), p.vector_grid, 1, kSecondPassBlock)[0];
      break;
    }
    case Kernel::grid_sync: r.sum = grid_sync_sum(d, n, p.grid_sync_grid, p.block); break;
    case Kernel::cub_sum:
      r.available = false;
      r.fixed_order = false;
      break;
    case Kernel::one_pass_vector: {
      const std::vector<T> partials = vector_partials(d, n, p.one_pass_grid, kOnePassBlock);
      r.sum = finishing_block_sum(partials.data(), p.one_pass_grid, kOnePassBlock);
      break;
    }
  }
  return r;
}

namespace {

// Elements a reduce_cp launch allocates: the threads' accumulators, the block sums, the scratch.
std::int64_t reduce_cp_elements(std::int64_t n, std::int64_t grid, std::int64_t block) {
  return std::min(grid * block, n) + grid + block;
}

// Both launches of two_pass: the first's, and the second's over the grid's sums beside them.
std::int64_t two_pass_elements(std::int64_t n, std::int64_t grid, std::int64_t block) {
  return reduce_cp_elements(n, grid, block) + reduce_cp_elements(grid, 1, kSecondPassBlock);
}

// vector_partials: W accumulators per live thread, their sums, then the block sums and scratch.
std::int64_t vector_elements(std::int64_t n, std::int64_t grid, std::int64_t block, std::int64_t width) {
  const std::int64_t live = std::min(grid * block, n / width);
  return width * live + std::max(live, n % width) + grid + block;
}

}  // namespace

std::uint64_t model_working_bytes(Kernel k, std::int64_t n, const Plan& p, std::size_t elem) {
  const std::int64_t block = p.block;
  const std::int64_t width = elem == sizeof(float) ? kVectorWidth<float> : kVectorWidth<double>;
  // Rungs 1-4 (the first kernels of enum Kernel) keep one tree's sum per block.
  if (static_cast<int>(k) <= static_cast<int>(Kernel::cg_reduce_atomic))
    return static_cast<std::uint64_t>(blocks_for(n, p.block) + block) * elem;
  std::int64_t elements = 0;
  switch (k) {
    case Kernel::two_pass_fixed_grid:
    case Kernel::static_buffer: elements = two_pass_elements(n, p.seed_grid, block); break;
    case Kernel::two_pass_occupancy: elements = two_pass_elements(n, p.occupancy_grid, block); break;
    case Kernel::two_pass_vector:
      elements = vector_elements(n, p.vector_grid, block, width) + reduce_cp_elements(p.vector_grid, 1, kSecondPassBlock);
      break;
    case Kernel::grid_sync: {
      const std::int64_t threads = std::min(static_cast<std::int64_t>(p.grid_sync_grid) * block, n);
      elements = threads + blocks_for(threads, p.block) + 2 * block;  // the block sums, then block 0's
      break;
    }
    case Kernel::one_pass_vector: elements = vector_elements(n, p.one_pass_grid, kOnePassBlock, width) + kOnePassBlock; break;
    default: break;  // CUB: the model does not replay it
  }
  return static_cast<std::uint64_t>(elements) * elem;
}

std::int64_t error_depth(Kernel k, std::int64_t n, const Plan& p, Dtype dtype) {
  const int lb = log2_of(p.block);
  // One reduce_cp launch: a chain of ceil(n / S) additions per thread (the first onto 0), a tree.
  const auto cp = [](std::int64_t items, int grid, int block) {
    return ceil_div(items, static_cast<std::int64_t>(grid) * block) + log2_of(block);
  };
  const std::int64_t finish = 2 * log2_of(kWarpSize);  // warp_first_block_sum: two trees of 32
  switch (k) {
    case Kernel::shared_atomic:
    case Kernel::syncwarp_atomic:
    case Kernel::shfl_down_atomic:
    case Kernel::shfl_xor_atomic:
    case Kernel::tile_shfl_down_atomic:
    case Kernel::cg_reduce_atomic: return lb + (blocks_for(n, p.block) - 1);
    case Kernel::two_pass_fixed_grid:
    case Kernel::static_buffer: return cp(n, p.seed_grid, p.block) + cp(p.seed_grid, 1, kSecondPassBlock);
    case Kernel::two_pass_occupancy: return cp(n, p.occupancy_grid, p.block) + cp(p.occupancy_grid, 1, kSecondPassBlock);
    case Kernel::two_pass_vector: {
      const int w = dtype == Dtype::f32 ? 4 : 2;
      const std::int64_t chain = ceil_div(n / w, static_cast<std::int64_t>(p.vector_grid) * p.block);
      return chain + log2_of(w) + 1 + finish + cp(p.vector_grid, 1, kSecondPassBlock);
    }
    case Kernel::grid_sync:
      return ceil_div(n, static_cast<std::int64_t>(p.grid_sync_grid) * p.block) + finish +
             ceil_div(p.grid_sync_grid, p.block) + finish;
    case Kernel::cub_sum: return 0;
    case Kernel::one_pass_vector: {
      const int w = dtype == Dtype::f32 ? 4 : 2;
      const std::int64_t chain = ceil_div(n / w, static_cast<std::int64_t>(p.one_pass_grid) * kOnePassBlock);
      return chain + log2_of(w) + 1 + finish + ceil_div(p.one_pass_grid, kOnePassBlock) + finish;
    }
  }
  return 0;
}

template <typename T>
double atomic_order_bound(const std::vector<T>& block_sums) {
  double total = 0.0;
  for (const T b : block_sums) total += std::fabs(static_cast<double>(b));
  const double u = std::is_same_v<T, float> ? unit_roundoff(Dtype::f32) : unit_roundoff(Dtype::f64);
  const double g = gamma_bound(static_cast<std::int64_t>(block_sums.size()) - 1, u);
  if (g < 0) return -1.0;
  return 2.0 * g * total * (1.0 + 1e-12);  // the last factor covers rounding in `total` itself
}

double cub_tolerance(Dtype d) { return d == Dtype::f32 ? 1e-5 : 1e-12; }

// --- plans and traces --------------------------------------------------------------------------

Plan default_plan(int block) {
  Plan p;
  p.block = block;
  const int per_sm = std::min(32, 2048 / block);
  p.occupancy_grid = kAssumedSms * per_sm;
  p.vector_grid = p.occupancy_grid;
  p.grid_sync_grid = p.occupancy_grid;
  p.grid_sync_limit = 0;
  p.one_pass_grid = kAssumedSms * (2048 / kOnePassBlock);
  return p;
}

int blocks_for(std::int64_t n, int block) { return static_cast<int>(ceil_div(n, block)); }

std::int64_t elements_of_thread(std::int64_t t, std::int64_t n, std::int64_t stride) {
  return t < n ? (n - 1 - t) / stride + 1 : 0;
}

namespace {

// The shuffle ladder of one warp: v += __shfl_down_sync(FULL, v, offset); a lane whose source is
// past lane 31 gets its own value back (and doubles it). Appends the 32 lanes after each step.
template <typename T>
void shuffle_steps(std::array<T, kWarpSize> v, std::vector<T>& out) {
  out.insert(out.end(), v.begin(), v.end());
  for (int offset = 16; offset > 0; offset >>= 1) {
    std::array<T, kWarpSize> next{};
    for (int l = 0; l < kWarpSize; ++l) {
      const int src = l + offset < kWarpSize ? l + offset : l;
      next[static_cast<std::size_t>(l)] = v[static_cast<std::size_t>(l)] + v[static_cast<std::size_t>(src)];
    }
    v = next;
    out.insert(out.end(), v.begin(), v.end());
  }
}

// The shared steps with __syncthreads (offsets block/2 ... 32), in place.
template <typename T>
void shared_steps_to_32(std::vector<T>& s, int block) {
  for (int offset = block >> 1; offset >= 32; offset >>= 1)
    for (int tid = 0; tid < offset; ++tid) s[static_cast<std::size_t>(tid)] += s[static_cast<std::size_t>(tid + offset)];
}

template <typename T>
std::array<T, kWarpSize> warp_of(const std::vector<T>& s, int warp) {
  std::array<T, kWarpSize> v{};
  for (int l = 0; l < kWarpSize; ++l) v[static_cast<std::size_t>(l)] = s[static_cast<std::size_t>(warp * kWarpSize + l)];
  return v;
}

}  // namespace

template <typename T>
Trace<T> model_trace(const std::vector<T>& x, const Plan& p, int block_index, int warp) {
  Trace<T> t;
  t.block_index = block_index;
  t.warp = warp;
  t.block = p.block;
  const int B = p.block;
  const auto n = static_cast<std::int64_t>(x.size());
  const std::int64_t first = static_cast<std::int64_t>(block_index) * B;
  std::vector<T> s(static_cast<std::size_t>(B));
  for (int i = 0; i < B; ++i) s[static_cast<std::size_t>(i)] = first + i < n ? x[static_cast<std::size_t>(first + i)] : T(0);
  const std::vector<T> input = s;

  t.shared_tree.insert(t.shared_tree.end(), s.begin(), s.end());
  for (int offset = B >> 1; offset > 0; offset >>= 1) {
    for (int tid = 0; tid < offset; ++tid) s[static_cast<std::size_t>(tid)] += s[static_cast<std::size_t>(tid + offset)];
    t.shared_tree.insert(t.shared_tree.end(), s.begin(), s.end());
  }

  s = input;
  shared_steps_to_32(s, B);
  shuffle_steps(warp_of(s, warp), t.shuffle);

  if (block_index < p.seed_grid) {
    const std::int64_t stride = static_cast<std::int64_t>(p.seed_grid) * B;
    for (int tid = 0; tid < B; ++tid) {
      T y(0);
      for (std::int64_t i = first + tid; i < n; i += stride) y += x[static_cast<std::size_t>(i)];
      s[static_cast<std::size_t>(tid)] = y;
    }
    const auto loop = warp_of(s, warp);
    t.grid_stride.insert(t.grid_stride.end(), loop.begin(), loop.end());
    shared_steps_to_32(s, B);
    shuffle_steps(warp_of(s, warp), t.grid_stride);
  }
  return t;
}

namespace {

struct KernelName {
  const char* id;
  const char* rung;  // "5", or "5'" for --bench's candidate
  const char* code;  // the name when it is code ("__shfl_down_sync"), else null
  const char* key;   // else the catalog key of its words in the run's language
};
// In the order of enum Kernel, then --bench's candidate.
constexpr KernelName kNames[kKernelCount + 1] = {
    {"shared-atomic", "1", nullptr, "kernel.shared-atomic"},
    {"syncwarp-atomic", "2", nullptr, "kernel.syncwarp-atomic"},
    {"shfl-down-atomic", "3", "__shfl_down_sync", nullptr},
    {"shfl-xor-atomic", "3", "__shfl_xor_sync", nullptr},
    {"tile-shfl-down-atomic", "4", "tile.shfl_down", nullptr},
    {"cg-reduce-atomic", "4", "cg::reduce", nullptr},
    {"two-pass-fixed-grid", "5", nullptr, "kernel.two-pass-fixed-grid"},
    {"two-pass-occupancy", "5", nullptr, "kernel.two-pass-occupancy"},
    {"two-pass-vector", "5", nullptr, "kernel.two-pass-vector"},
    {"static-buffer", "6", nullptr, "kernel.static-buffer"},
    {"grid-sync", "7", nullptr, "kernel.grid-sync"},
    {"cub-sum", "8", "cub::DeviceReduce::Sum", nullptr},
    {"one-pass-vector", "5'", nullptr, "kernel.one-pass-vector"}};

static_assert(static_cast<int>(Kernel::one_pass_vector) == kKernelCount);  // the candidate right after the ladder
const KernelName& name_of(Kernel k) { return kNames[static_cast<int>(k)]; }

}  // namespace

const char* kernel_id(Kernel k) { return name_of(k).id; }
const char* kernel_rung(Kernel k) { return name_of(k).rung; }
std::string kernel_name(Kernel k) {
  const KernelName& n = name_of(k);
  return n.code != nullptr ? std::string(n.code) : say(n.key);
}
std::string kernel_title(Kernel k) { return std::string(kernel_rung(k)) + " " + kernel_name(k); }
const char* dtype_name(Dtype d) { return d == Dtype::f32 ? "float" : "double"; }

#define CUDASYNC_CG_REDUCE_INSTANTIATE(T)                                                          \
  template std::vector<T> make_inputs<T>(std::int64_t, std::uint64_t);                              \
  template double exact_sum<T>(const std::vector<T>&);                                              \
  template T tree_sum<T>(T*, int);                                                                  \
  template std::vector<T> block_tree_sums<T>(const T*, std::int64_t, int);                          \
  template T fold_in_order<T>(const std::vector<T>&);                                               \
  template std::vector<T> reduce_cp<T>(const T*, std::int64_t, int, int);                           \
  template T two_pass<T>(const T*, std::int64_t, int, int);                                         \
  template std::vector<T> vector_partials<T>(const T*, std::int64_t, int, int);                     \
  template T warp_first_block_sum<T>(const T*, int);                                                \
  template T grid_sync_sum<T>(const T*, std::int64_t, int, int);                                    \
  template ModelResult<T> model_kernel<T>(Kernel, const std::vector<T>&, const Plan&);              \
  template double atomic_order_bound<T>(const std::vector<T>&);                                     \
  template Trace<T> model_trace<T>(const std::vector<T>&, const Plan&, int, int);

CUDASYNC_CG_REDUCE_INSTANTIATE(float)
CUDASYNC_CG_REDUCE_INSTANTIATE(double)
#undef CUDASYNC_CG_REDUCE_INSTANTIATE

}  // namespace cudasync::cg_reduce
