#pragma once
// Happens-before for the PTX model: a vector clock per thread, and the PTX memory model's rules for
// data-race-free programs (PTX ISA, "Memory Consistency Model"):
//   - bar.sync / barrier.sync / bar.red participants of one block, and bar.warp.sync participants,
//     join their clocks (the machine gathers them and calls join_into for each);
//   - release -> acquire through one location: a release store or RMW, or a fence (fence.sc,
//     fence.acq_rel, membar) followed by a strong write of the same thread, publishes the writer's
//     clock on the location; an acquire load or RMW, or a strong read followed by a fence of the
//     same thread, that reads it joins that clock - only when the scopes include both threads
//     (.cta: one block; .gpu: the blocks of one GPU, the grid unless the launch spreads it over
//     several; .sys: the grid). membar.cta is fence.sc.cta, membar.gl fence.sc.gpu.
//   - shfl / vote / match / redux order no memory.
// Two conflicting accesses (the same byte, at least one a write) that happens-before does not order
// are a data race, unless both are morally strong: strong (relaxed, volatile, acquire, release or
// atomic), the same bytes, each scope including the other thread.
//
// Example: thread 0 of block 0 writes data (weak), runs membar.gl, writes flag (volatile: relaxed
// .sys); thread 0 of block 1 reads flag == 1 (volatile), runs membar.gl, reads data: the fence pair
// orders the data accesses, no race. With membar.cta instead, .cta does not include the other
// block: the data write and read race.
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace cudasync::ptx {

inline constexpr int kMaxModelThreads = 2048;

// The scope of a strong operation; none marks a weak (plain) access.
enum class Scope : std::uint8_t { none, cta, gpu, sys };

struct Access {
  int thread = -1;
  std::uint32_t epoch = 0;
  int instr = -1;  // the instruction's index in the entry
  bool write = false;
  Scope scope = Scope::none;
  std::uint64_t start = 0;  // the whole access, for the "same bytes" test of morally strong pairs
  std::uint32_t size = 0;
};

struct Race {
  Access earlier;
  Access later;
  std::uint64_t byte = 0;  // the first byte both touch (a shadow key)
};

using Clock = std::vector<std::uint32_t>;

class HappensBefore {
 public:
  // Throws ptx::Error{"limit"} above kMaxModelThreads threads. `gpu_size` threads (whole blocks)
  // make one GPU: .gpu scope reaches only the threads of one (0: the whole grid is one GPU).
  HappensBefore(int threads, int block_size, int gpu_size = 0);

  void tick(int t);
  Clock snapshot(int t) const;
  void accumulate(Clock& into, int t) const;  // into = max(into, clock of t)
  void join_into(int t, const Clock& c);
  std::uint32_t epoch(int t) const { return at(t, t); }

  // A memory access of `size` bytes at shadow key `key` (a global address, or a block's shared
  // offset made unique). Returns the first race it completes, if any.
  std::optional<Race> access(int t, std::uint64_t key, std::uint32_t size, bool write, Scope scope, int instr);

  void strong_write(int t, std::uint64_t key, Scope scope, bool release, bool rmw);
  void weak_write(std::uint64_t key);
  void strong_read(int t, std::uint64_t key, Scope scope, bool acquire);
  // fence.sc / fence.acq_rel / membar: both sides; fence.acquire and fence.release: one each.
  void fence(int t, Scope scope, bool acquire = true, bool release = true);

  bool same_block(int a, int b) const { return a / block_ == b / block_; }
  bool includes(Scope s, int a, int b) const;

 private:
  struct Cell {
    Access write;
    std::vector<Access> reads;  // since the last write, sorted by thread
  };
  struct SyncVar {
    std::shared_ptr<const Clock> clock;
    int writer = -1;
    Scope scope = Scope::none;
  };
  struct Pending {
    std::shared_ptr<const Clock> clock;
    int writer = -1;
    std::uint64_t key = 0;  // the location read: a later read of it merges into this entry
  };
  std::uint32_t at(int t, int u) const {
    return clocks_[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(u)];
  }
  bool ordered(const Access& a, int t) const { return a.thread == t || at(t, a.thread) >= a.epoch; }
  bool morally_strong(const Access& a, const Access& b) const;
  void acquire_pending(int t, Scope scope);

  int n_ = 0, block_ = 1, gpu_ = 0;
  std::vector<std::uint32_t> clocks_;
  std::unordered_map<std::uint64_t, Cell> shadow_;
  std::unordered_map<std::uint64_t, SyncVar> sync_;
  std::vector<std::vector<Pending>> pending_;
  std::vector<std::shared_ptr<const Clock>> fence_clock_;
  std::vector<Scope> fence_scope_;
};

}  // namespace cudasync::ptx
