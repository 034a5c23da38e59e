#pragma once
// Which runnable thread of the PTX model moves next. A turn is what one thread runs before the
// scheduler chooses again; every choice is reproducible from the schedule and its seed.
//
//   round_robin          threads 0, 1, 2, ... in turn, one instruction each
//   reverse              the highest thread first: N-1, N-2, ..., 0, one instruction each
//   seeded_random(s)     a random runnable thread for a random 1..8 instructions (mt19937_64(s))
//   one_ahead(t)         thread t's block (or warp, with warp_only) runs, one instruction a turn in
//                        thread order, until none of it can move; then the others. A group that
//                        spins never blocks: after `patience` turns of its own, each other runnable
//                        thread gets one turn, so a producer the group waits for still moves.
//   switch_every_access  a random runnable thread runs up to and including its next memory access
//                        (a load, store, atomic or fence): every access can be interleaved.
//
// Example: with 4 runnable threads {0, 1, 2, 3}, reverse picks 3, 2, 1, 0, 3, ... and one_ahead(2)
// with blocks of 2 picks 2, 3, 2, 3, ... until threads 2 and 3 wait at a barrier, then 0, 1, ...
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cudasync::ptx {

struct Schedule {
  enum class Kind { round_robin, reverse, seeded_random, one_ahead, switch_every_access };
  Kind kind = Kind::round_robin;
  std::uint64_t seed = 0;
  int focus = 0;           // one_ahead: a thread of the group that runs ahead (linear id)
  bool warp_only = false;  // one_ahead: the group is focus's warp, not its block
  int patience = 4096;     // one_ahead: turns of the group before the others get one each

  static Schedule round_robin();
  static Schedule reverse();
  static Schedule seeded_random(std::uint64_t seed);
  static Schedule one_ahead(int thread, bool warp_only = false);
  static Schedule switch_every_access(std::uint64_t seed);
  // "round-robin", "reverse", "seeded-random", "one-ahead", "switch-every-access"
  std::string kind_name() const;
  // "seeded-random (seed 3)", "one-ahead (thread 128's block)"
  std::string name() const;
};

// The runnable threads, as a set with O(1) insert, erase and random choice.
class RunnableSet {
 public:
  explicit RunnableSet(int threads = 0);
  void reset(int threads);
  void insert(int t);
  void erase(int t);
  bool contains(int t) const { return pos_[static_cast<std::size_t>(t)] >= 0; }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  int at(std::size_t i) const { return items_[i]; }

 private:
  std::vector<int> items_;
  std::vector<int> pos_;
};

// One run's scheduler: pick() names the next thread and how many instructions it may run
// (`budget`); `stop_after_access` ends the turn after a memory access.
class Scheduler {
 public:
  Scheduler(const Schedule& s, int threads, int block_size);
  struct Turn {
    int thread = -1;
    int budget = 1;
    bool stop_after_access = false;
  };
  Turn pick(const RunnableSet& runnable);

 private:
  int next_in_order(const RunnableSet& r, int from, bool down) const;
  int next_in_group(const RunnableSet& r);
  Schedule s_;
  int threads_;
  int group_first_ = 0, group_last_ = -1;
  int cursor_ = -1;
  int group_cursor_ = -1;
  int group_turns_ = 0;
  int others_owed_ = 0;
  std::mt19937_64 gen_;
};

}  // namespace cudasync::ptx
