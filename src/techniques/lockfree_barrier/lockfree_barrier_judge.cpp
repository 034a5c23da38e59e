#include "techniques/lockfree_barrier/lockfree_barrier_judge.hpp"

#include <algorithm>

#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

std::string sim_outcome(const SimResult& m) {
  std::string s = m.deadlock    ? say("sim.deadlock", {{"step", m.total_steps}})
                  : m.completed ? say("sim.completed", {{"steps", m.total_steps}})
                                : say("sim.stopped");
  if (m.early_barrier > 0) s += say("sim.early", {{"block", m.early_block}, {"barrier", m.early_barrier}});
  return s;
}

const char* sim_outcome_id(const SimResult& m) {
  return m.deadlock ? "deadlocks" : m.completed ? "completes" : "stops";
}

bool sim_passes(const SimResult& m) { return m.completed && m.early_barrier == 0; }

std::string ValuesVerdict::detail(int threads) const {
  if (compared == 0) return say("values.nothing-compared");
  if (wrong == 0) return say("values.every-equal");
  const auto t = static_cast<std::size_t>(std::max(1, threads));
  return say("values.differ", {{"wrong", wrong}, {"block", first_wrong / t}, {"thread", first_wrong % t}});
}

ValuesVerdict judge_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model) {
  ValuesVerdict v;
  if (model.empty() || gpu.size() != model.size()) return v;
  v.compared = model.size();
  for (std::size_t i = 0; i < model.size(); ++i)
    if (gpu[i] != model[i] && v.wrong++ == 0) v.first_wrong = i;
  return v;
}

std::string words_text(Barrier b, const std::vector<std::uint32_t>& w, int blocks) {
  if (w.empty()) return "-";
  switch (b) {
    case Barrier::xf_lock:
    case Barrier::xf_lock_unrepaired: return "g_mutex " + std::to_string(w[0]);
    case Barrier::xf_lockfree:
    case Barrier::xf_lockfree_unrepaired: {
      const auto n = static_cast<std::ptrdiff_t>(std::min<std::size_t>(static_cast<std::size_t>(blocks), w.size()));
      const auto range = [](auto first, auto last) {
        if (first == last) return say("none");
        const auto [lo, hi] = std::minmax_element(first, last);
        return *lo == *hi ? say("words.all", {{"value", *lo}}) : std::to_string(*lo) + ".." + std::to_string(*hi);
      };
      return "Arrayin " + range(w.begin(), w.begin() + n) + ", Arrayout " + range(w.begin() + n, w.end());
    }
    case Barrier::own:
    case Barrier::own_cluster: {
      std::string values;
      for (std::size_t i = 0; i < w.size() && i < 8; ++i) values += (i ? " " : "") + std::to_string(w[i]);
      if (w.size() > 8) values += " ...";
      return w.size() == 1 ? say("words.counter", {{"values", values}}) : say("words.counters", {{"values", values}});
    }
    default: return "-";
  }
}

bool Arrivals::deadline_ended(const GpuRun& g, int blocks) const {
  return g.deadline_hit && !never.empty() && arrived.size() + never.size() == static_cast<std::size_t>(blocks);
}

Arrivals arrivals(const GpuRun& g) {
  Arrivals a;
  for (std::size_t i = 0; i < g.arrive_ns.size(); ++i)
    (g.arrive_ns[i] != 0 ? a.arrived : a.never).push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < g.gave_up.size(); ++i)
    if (g.gave_up[i] != 0) a.gave_up.push_back(static_cast<int>(i));
  return a;
}

std::string gpu_status(const GpuRun& g, bool beyond) {
  if (!g.refused.empty()) return say("status.refused");
  return say(beyond || g.deadline_hit ? "status.deadline" : "status.ran");
}

std::string BenchDeadlines::detail() const {
  if (hit.empty()) return say("bench.every-completed");
  std::string cells;
  for (const auto& h : hit) cells += (cells.empty() ? "" : ", ") + h;
  return say("bench.gave-up", {{"cells", cells}});
}

}  // namespace cudasync::lockfree_barrier
