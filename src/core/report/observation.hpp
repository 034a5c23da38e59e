#pragma once
// What a part compares: the reference model's value beside the GPU's, and whether they agree.
//
//   Observation<int> o{model[lane], gpu ? std::optional<int>((*gpu)[lane]) : std::nullopt};
//   o.agrees()   // true on the model (nothing to compare) or when the GPU gave the model's value
//
// A part that draws a table of such rows keeps one Agreement: each row is noted as it is drawn and
// takes its mark from it, and the part ends with one check naming the rows that differ. This is
// the one comparison loop; a lesson says only what "agrees" means for its values.
//
//   report::Agreement a(run.ctx.gpu);
//   for (int lane = 0; lane < threads; ++lane)
//     t.row(cells, a.note(lane, shuffle_lane_agrees(m[lane], g[lane]), lane_mark(m[lane].outcome)));
//   a.check(s, "gpu-agrees", "shfl", a.passed() ? say("judge.lanes-agree", ...) : say("judge.lanes-differ", ...));
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"

namespace cudasync::report {

template <class T>
struct Observation {
  T model{};
  std::optional<T> gpu;  // absent on the model backend

  bool measured() const { return gpu.has_value(); }
  bool agrees() const { return !gpu || *gpu == model; }
  // What a table shows as the run's value: the GPU's where there is one.
  const T& shown() const { return gpu ? *gpu : model; }
};

class Agreement {
 public:
  explicit Agreement(bool gpu) : gpu_(gpu) {}

  // Notes one compared row (a lane, a block, a run) and returns the row's mark: `mark` when it
  // agrees or the run had no GPU, RowMark::mismatch when the GPU disagreed.
  RowMark note(std::int64_t row, bool agrees, RowMark mark = RowMark::none);
  template <class T>
  RowMark note(std::int64_t row, const Observation<T>& o, RowMark mark = RowMark::none) {
    return note(row, o.agrees(), mark);
  }

  bool gpu() const { return gpu_; }
  bool passed() const { return differing_.empty(); }
  std::size_t compared() const { return compared_; }
  const std::vector<std::int64_t>& differing() const { return differing_; }
  // "3, 7, 12" (the first eight, then "... (N in all)"), for a check's detail.
  std::string differing_list() const;

  // Adds the section's "GPU agrees with the reference model: <what>" check, on a GPU run only (a
  // model run has nothing to compare, so it claims nothing).
  void check(Section& s, std::string id, const std::string& what, std::string detail) const;

 private:
  bool gpu_;
  std::size_t compared_ = 0;
  std::vector<std::int64_t> differing_;
};

}  // namespace cudasync::report
