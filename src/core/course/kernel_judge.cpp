#include "core/course/kernel_judge.hpp"

#include <algorithm>
#include <map>

namespace cudasync::course {

namespace {

// The sum of in[] over the `size` consecutive threads from `first` (wrapping as int32 does on the GPU).
std::int32_t sum_of(const std::vector<std::int32_t>& in, std::size_t first, std::size_t size) {
  std::uint32_t s = 0;
  for (std::size_t i = first; i < first + size && i < in.size(); ++i) s += static_cast<std::uint32_t>(in[i]);
  return static_cast<std::int32_t>(s);
}

// The group of thread t a sum is over: its first thread and its size.
std::pair<std::size_t, std::size_t> group_of(const KernelExpect& x, int t, int block, int grid) {
  const std::size_t tid = static_cast<std::size_t>(t % block), start = static_cast<std::size_t>(t - t % block);
  if (x.over == KernelExpect::kOverGrid) return {0, static_cast<std::size_t>(grid) * static_cast<std::size_t>(block)};
  if (x.over == KernelExpect::kOverBlock) return {start, static_cast<std::size_t>(block)};
  const std::size_t size = static_cast<std::size_t>(x.over);
  return {start + tid / size * size, size};
}

}  // namespace

bool checked_thread(const KernelExpect& x, int t, int block) {
  switch (x.who) {
    case KernelExpect::Who::all: return true;
    case KernelExpect::Who::first: return t % block == 0;
    case KernelExpect::Who::lane0: return t % block % 32 == 0;
  }
  return true;
}

LaunchJudgement judge_launch(const KernelExpect& x, int grid, int block, const std::vector<std::int32_t>& in,
                             const std::vector<std::int32_t>& out) {
  LaunchJudgement j;
  const int threads = grid * block;
  std::map<std::int32_t, int> seen;  // tickets: how many checked threads returned each value
  if (x.what == KernelExpect::What::tickets)
    for (int t = 0; t < threads && t < static_cast<int>(out.size()); ++t)
      if (checked_thread(x, t, block)) ++seen[out[static_cast<std::size_t>(t)]];
  for (int t = 0; t < threads && t < static_cast<int>(out.size()) && t < static_cast<int>(in.size()); ++t) {
    if (!checked_thread(x, t, block)) continue;
    ++j.checked;
    const std::size_t i = static_cast<std::size_t>(t);
    const std::int32_t got = out[i];
    WrongThread w;
    w.thread = t;
    w.got = got;
    switch (x.what) {
      case KernelExpect::What::sum: {
        const auto [first, size] = group_of(x, t, block, grid);
        w.expected = sum_of(in, first, size);
        if (got != *w.expected && size > 32 && got == sum_of(in, i - i % 32, 32)) w.looks_like = "warp-sum";
        break;
      }
      case KernelExpect::What::input: w.expected = in[i]; break;
      case KernelExpect::What::rotate: {
        const int start = t - t % block;
        w.expected = x.over == KernelExpect::kOverGrid
                         ? in[static_cast<std::size_t>((t + x.by * block) % threads)]
                         : in[static_cast<std::size_t>(start + (t % block + x.by) % block)];
        break;
      }
      case KernelExpect::What::tickets: break;
    }
    if (x.what == KernelExpect::What::tickets) {
      // The k checked threads hold 0..k-1, each once: a value out of range or held twice is wrong
      // (a repeated ticket is a lost update: two threads read the counter before either wrote it).
      // The count of checked threads is known only at the end: judged below.
      continue;
    }
    if (got == *w.expected) continue;
    if (w.looks_like.empty() && got == in[i]) w.looks_like = "own-value";
    if (w.looks_like.empty() && got == 0) w.looks_like = "zero";
    j.wrong.push_back(w);
  }
  // A sum every thread should hold, right in the first thread of each group and wrong only in the
  // others: the sum reached one thread (a shuffle down, a tree that stops at thread 0).
  if (x.what == KernelExpect::What::sum && x.who == KernelExpect::Who::all && !j.wrong.empty()) {
    std::map<std::size_t, std::size_t> wrong_in;  // group's first thread -> its wrong threads
    bool firsts_only = true;
    for (const WrongThread& w : j.wrong) {
      const auto [first, size] = group_of(x, w.thread, block, grid);
      if (static_cast<std::size_t>(w.thread) == first || first >= out.size() || out[first] != sum_of(in, first, size))
        firsts_only = false;
      ++wrong_in[first];
    }
    for (const auto& [first, count] : wrong_in)
      if (count + 1 != group_of(x, static_cast<int>(first), block, grid).second) firsts_only = false;
    if (firsts_only)
      for (WrongThread& w : j.wrong) w.looks_like = "first-only";
  }
  if (x.what == KernelExpect::What::tickets) {
    for (int t = 0; t < threads && t < static_cast<int>(out.size()); ++t) {
      if (!checked_thread(x, t, block)) continue;
      const std::int32_t got = out[static_cast<std::size_t>(t)];
      if (got >= 0 && got < j.checked && seen[got] == 1) continue;
      WrongThread w;
      w.thread = t;
      w.got = got;
      w.looks_like = seen[got] > 1 ? "repeated" : "";
      j.wrong.push_back(w);
    }
  }
  return j;
}

bool same_outputs(const KernelExpect& x, int block, const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  if (a.size() != b.size()) return false;
  std::vector<std::int32_t> ta, tb;
  for (std::size_t t = 0; t < a.size(); ++t) {
    if (!checked_thread(x, static_cast<int>(t), block)) continue;
    if (x.what == KernelExpect::What::tickets) {
      ta.push_back(a[t]);
      tb.push_back(b[t]);
    } else if (a[t] != b[t]) {
      return false;
    }
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return ta == tb;
}

}  // namespace cudasync::course
