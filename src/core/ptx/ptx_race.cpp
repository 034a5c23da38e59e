#include "core/ptx/ptx_race.hpp"

#include <algorithm>
#include <string>

#include "core/ptx/ptx_parse.hpp"

namespace cudasync::ptx {

HappensBefore::HappensBefore(int threads, int block_size, int gpu_size)
    : n_(threads), block_(block_size > 0 ? block_size : 1), gpu_(gpu_size > 0 ? gpu_size : threads) {
  if (threads <= 0 || threads > kMaxModelThreads)
    throw Error("limit", 0,
                "the model runs at most " + std::to_string(kMaxModelThreads) + " threads; this launch has " +
                    std::to_string(threads));
  clocks_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_), 0);
  for (int t = 0; t < n_; ++t) clocks_[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_ + 1)] = 1;
  pending_.resize(static_cast<std::size_t>(n_));
  fence_clock_.resize(static_cast<std::size_t>(n_));
  fence_scope_.assign(static_cast<std::size_t>(n_), Scope::none);
}

void HappensBefore::tick(int t) { ++clocks_[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_ + 1)]; }

Clock HappensBefore::snapshot(int t) const {
  const auto b = clocks_.begin() + static_cast<std::ptrdiff_t>(t) * n_;
  return Clock(b, b + n_);
}

void HappensBefore::accumulate(Clock& into, int t) const {
  if (into.size() != static_cast<std::size_t>(n_)) into.assign(static_cast<std::size_t>(n_), 0);
  for (int u = 0; u < n_; ++u) into[static_cast<std::size_t>(u)] = std::max(into[static_cast<std::size_t>(u)], at(t, u));
}

void HappensBefore::join_into(int t, const Clock& c) {
  if (c.size() != static_cast<std::size_t>(n_)) return;
  auto* row = &clocks_[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_)];
  for (std::size_t u = 0; u < c.size(); ++u) row[u] = std::max(row[u], c[u]);
}

bool HappensBefore::includes(Scope s, int a, int b) const {
  switch (s) {
    case Scope::none: return false;
    case Scope::cta: return same_block(a, b);
    case Scope::gpu: return a / gpu_ == b / gpu_;
    case Scope::sys: return true;
  }
  return false;
}

bool HappensBefore::morally_strong(const Access& a, const Access& b) const {
  return a.scope != Scope::none && b.scope != Scope::none && a.start == b.start && a.size == b.size &&
         includes(a.scope, a.thread, b.thread) && includes(b.scope, b.thread, a.thread);
}

std::optional<Race> HappensBefore::access(int t, std::uint64_t key, std::uint32_t size, bool write, Scope scope, int instr) {
  Access me;
  me.thread = t;
  me.epoch = epoch(t);
  me.instr = instr;
  me.write = write;
  me.scope = scope;
  me.start = key;
  me.size = size;
  std::optional<Race> found;
  auto conflict = [&](const Access& other, std::uint64_t byte) {
    if (found || other.thread < 0 || ordered(other, t) || morally_strong(other, me)) return;
    found = Race{other, me, byte};
  };
  for (std::uint32_t i = 0; i < size; ++i) {
    Cell& c = shadow_[key + i];
    conflict(c.write, key + i);
    if (write) {
      for (const auto& r : c.reads) conflict(r, key + i);
      c.reads.clear();
      c.write = me;
    } else {
      auto it = std::lower_bound(c.reads.begin(), c.reads.end(), t,
                                 [](const Access& a, int th) { return a.thread < th; });
      if (it != c.reads.end() && it->thread == t)
        *it = me;
      else
        c.reads.insert(it, me);
    }
  }
  return found;
}

void HappensBefore::strong_write(int t, std::uint64_t key, Scope scope, bool release, bool rmw) {
  const auto ti = static_cast<std::size_t>(t);
  std::shared_ptr<const Clock> published;
  Scope s = scope;
  if (release) {
    published = std::make_shared<const Clock>(snapshot(t));
  } else if (fence_clock_[ti]) {
    published = fence_clock_[ti];
    s = std::min(scope, fence_scope_[ti]);
  }
  if (!published) {
    if (!rmw) sync_.erase(key);  // a plain strong write ends the release sequence; an RMW continues it
  } else {
    const auto it = sync_.find(key);
    if (rmw && it != sync_.end() && it->second.clock) {
      // An RMW extends the release sequence it reads from: an acquire of it synchronises with both.
      Clock merged = *it->second.clock;
      for (std::size_t u = 0; u < merged.size() && u < published->size(); ++u)
        merged[u] = std::max(merged[u], (*published)[u]);
      sync_[key] = SyncVar{std::make_shared<const Clock>(std::move(merged)), t, std::min(s, it->second.scope)};
    } else {
      sync_[key] = SyncVar{published, t, s};
    }
  }
  if (release) tick(t);
}

void HappensBefore::weak_write(std::uint64_t key) { sync_.erase(key); }

void HappensBefore::strong_read(int t, std::uint64_t key, Scope scope, bool acquire) {
  const auto it = sync_.find(key);
  // A thread that reads its own last RMW still acquires the release sequence that RMW extended:
  // the other arrivals at a counter it added to last (a grid barrier's last block).
  if (it == sync_.end()) return;
  const SyncVar& s = it->second;
  if (!includes(scope, t, s.writer) || !includes(s.scope, s.writer, t)) return;
  if (acquire) {
    join_into(t, *s.clock);
    return;
  }
  // A relaxed read, to be acquired by a later fence. A spin reads one location many times: one entry
  // per location, its clocks merged, so that the list does not grow with the spin.
  auto& p = pending_[static_cast<std::size_t>(t)];
  for (auto& q : p) {
    if (q.key != key) continue;
    if (q.clock == s.clock) return;
    Clock merged = *q.clock;
    for (std::size_t u = 0; u < merged.size() && u < s.clock->size(); ++u) merged[u] = std::max(merged[u], (*s.clock)[u]);
    q.clock = std::make_shared<const Clock>(std::move(merged));
    q.writer = s.writer;
    return;
  }
  p.push_back(Pending{s.clock, s.writer, key});
}

void HappensBefore::fence(int t, Scope scope, bool acquire, bool release) {
  const auto ti = static_cast<std::size_t>(t);
  if (acquire) acquire_pending(t, scope);
  if (!release) return;
  fence_clock_[ti] = std::make_shared<const Clock>(snapshot(t));
  fence_scope_[ti] = scope;
  tick(t);
}

void HappensBefore::acquire_pending(int t, Scope scope) {
  auto& p = pending_[static_cast<std::size_t>(t)];
  std::vector<Pending> keep;
  for (const auto& q : p) {
    if (includes(scope, t, q.writer))
      join_into(t, *q.clock);
    else
      keep.push_back(q);
  }
  p.swap(keep);
}

}  // namespace cudasync::ptx
