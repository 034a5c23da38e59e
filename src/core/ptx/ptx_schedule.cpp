#include "core/ptx/ptx_schedule.hpp"

#include <algorithm>

namespace cudasync::ptx {

Schedule Schedule::round_robin() { return Schedule{}; }

Schedule Schedule::reverse() {
  Schedule s;
  s.kind = Kind::reverse;
  return s;
}

Schedule Schedule::seeded_random(std::uint64_t seed) {
  Schedule s;
  s.kind = Kind::seeded_random;
  s.seed = seed;
  return s;
}

Schedule Schedule::one_ahead(int thread, bool warp_only) {
  Schedule s;
  s.kind = Kind::one_ahead;
  s.focus = thread;
  s.warp_only = warp_only;
  return s;
}

Schedule Schedule::switch_every_access(std::uint64_t seed) {
  Schedule s;
  s.kind = Kind::switch_every_access;
  s.seed = seed;
  return s;
}

std::string Schedule::kind_name() const {
  switch (kind) {
    case Kind::round_robin: return "round-robin";
    case Kind::reverse: return "reverse";
    case Kind::seeded_random: return "seeded-random";
    case Kind::one_ahead: return "one-ahead";
    case Kind::switch_every_access: return "switch-every-access";
  }
  return "?";
}

std::string Schedule::name() const {
  switch (kind) {
    case Kind::seeded_random:
    case Kind::switch_every_access: return kind_name() + " (seed " + std::to_string(seed) + ")";
    case Kind::one_ahead:
      return kind_name() + " (thread " + std::to_string(focus) + "'s " + (warp_only ? "warp" : "block") + ")";
    default: return kind_name();
  }
}

RunnableSet::RunnableSet(int threads) { reset(threads); }

void RunnableSet::reset(int threads) {
  items_.clear();
  pos_.assign(static_cast<std::size_t>(threads), -1);
}

void RunnableSet::insert(int t) {
  auto& p = pos_[static_cast<std::size_t>(t)];
  if (p >= 0) return;
  p = static_cast<int>(items_.size());
  items_.push_back(t);
}

void RunnableSet::erase(int t) {
  auto& p = pos_[static_cast<std::size_t>(t)];
  if (p < 0) return;
  const int last = items_.back();
  items_[static_cast<std::size_t>(p)] = last;
  pos_[static_cast<std::size_t>(last)] = p;
  items_.pop_back();
  p = -1;
}

Scheduler::Scheduler(const Schedule& s, int threads, int block_size) : s_(s), threads_(threads), gen_(s.seed) {
  if (s.kind == Schedule::Kind::one_ahead) {
    const int size = s.warp_only ? 32 : block_size;
    const int focus = s.focus < 0 ? 0 : (s.focus >= threads ? threads - 1 : s.focus);
    const int block = focus / block_size;
    if (s.warp_only) {
      const int in_block = focus % block_size;
      group_first_ = block * block_size + in_block / 32 * 32;
      group_last_ = std::min(group_first_ + size, (block + 1) * block_size) - 1;
    } else {
      group_first_ = block * block_size;
      group_last_ = std::min(group_first_ + size, threads) - 1;
    }
  }
}

// The next runnable thread after `from` in thread order (or before it, going down), wrapping.
int Scheduler::next_in_order(const RunnableSet& r, int from, bool down) const {
  for (int k = 1; k <= threads_; ++k) {
    int t = down ? from - k : from + k;
    t = ((t % threads_) + threads_) % threads_;
    if (r.contains(t)) return t;
  }
  return -1;
}

int Scheduler::next_in_group(const RunnableSet& r) {
  const int n = group_last_ - group_first_ + 1;
  for (int k = 1; k <= n; ++k) {
    const int t = group_first_ + (((group_cursor_ - group_first_ + k) % n) + n) % n;
    if (r.contains(t)) {
      group_cursor_ = t;
      return t;
    }
  }
  return -1;
}

Scheduler::Turn Scheduler::pick(const RunnableSet& r) {
  Turn turn;
  if (r.empty()) return turn;
  switch (s_.kind) {
    case Schedule::Kind::round_robin:
      cursor_ = next_in_order(r, cursor_, false);
      turn.thread = cursor_;
      return turn;
    case Schedule::Kind::reverse:
      cursor_ = next_in_order(r, cursor_ < 0 ? threads_ : cursor_, true);
      turn.thread = cursor_;
      return turn;
    case Schedule::Kind::seeded_random:
      turn.thread = r.at(static_cast<std::size_t>(gen_() % r.size()));
      turn.budget = 1 + static_cast<int>(gen_() % 8);
      return turn;
    case Schedule::Kind::switch_every_access:
      turn.thread = r.at(static_cast<std::size_t>(gen_() % r.size()));
      turn.budget = 1 << 12;
      turn.stop_after_access = true;
      return turn;
    case Schedule::Kind::one_ahead: {
      if (others_owed_ > 0) {
        --others_owed_;
        for (int k = 1; k <= threads_; ++k) {
          const int t = (((cursor_ + k) % threads_) + threads_) % threads_;
          if (t >= group_first_ && t <= group_last_) continue;
          if (!r.contains(t)) continue;
          cursor_ = t;
          turn.thread = t;
          return turn;
        }
        others_owed_ = 0;
      }
      const int g = group_cursor_ < 0 ? (group_cursor_ = group_first_ - 1, next_in_group(r)) : next_in_group(r);
      if (g >= 0) {
        if (++group_turns_ >= s_.patience) {
          group_turns_ = 0;
          others_owed_ = static_cast<int>(r.size());
        }
        turn.thread = g;
        return turn;
      }
      cursor_ = next_in_order(r, cursor_, false);
      turn.thread = cursor_;
      return turn;
    }
  }
  return turn;
}

}  // namespace cudasync::ptx
