// The two step-by-step tables of a barrier's section: the model's simulation, and (--trace) barrier
// 1 on the GPU, block by block, as a timeline.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/lockfree_barrier/lockfree_barrier_lesson.hpp"

namespace cudasync::lockfree_barrier {

using I = std::int64_t;
using report::Format;
using report::Undefined;
using report::Value;

std::string timeline(std::int64_t arrive, std::int64_t release, std::int64_t t0, std::int64_t t1, int width) {
  std::string line(static_cast<std::size_t>(std::max(2, width)), ' ');
  const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
  const auto col = [&](std::int64_t t) {
    const std::int64_t c = (t - t0) * (static_cast<std::int64_t>(line.size()) - 1) / span;
    return static_cast<std::size_t>(std::clamp<std::int64_t>(c, 0, static_cast<std::int64_t>(line.size()) - 1));
  };
  const std::size_t a = col(arrive);
  if (release == 0) {
    for (std::size_t i = a; i < line.size(); ++i) line[i] = '-';
    line[a] = 'a';
    return line;
  }
  const std::size_t r = col(release);
  for (std::size_t i = a; i <= r; ++i) line[i] = '-';
  line[a] = 'a';
  line[r] = r == a ? 'x' : 'r';
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

report::Table step_table(const SimResult& m) {
  report::Table t("steps", say("steps.title"));
  t.column("step", say("column.step"))
      .column("blocks", say("column.blocks"))
      .column("event", say("column.event"))
      .column("state", say("column.state-after"));
  for (const auto& s : m.steps)
    t.row({{"step", static_cast<I>(s.step)},
           {"blocks", s.blocks.empty() ? Value{Undefined{}} : Value{s.blocks}},
           {"event", s.event},
           {"state", s.state.empty() ? Value{Undefined{}} : Value{s.state}}});
  t.legend.push_back(say("steps.schedule-legend", {{"schedule", m.schedule}}));
  return t;
}

std::optional<report::Table> model_timeline(const SimResult& m) {
  if (std::all_of(m.arrive_step.begin(), m.arrive_step.end(), [](int s) { return s == 0; })) return std::nullopt;
  report::Table t("model-timeline", say("model-timeline.title"));
  t.column("block", say("column.block"))
      .column("arrive", say("model-timeline.arrive"))
      .column("release", say("model-timeline.release"));
  for (std::size_t b = 0; b < m.arrive_step.size(); ++b) {
    const auto step = [](int s) { return s == 0 ? Value{Undefined{}} : Value{static_cast<I>(s)}; };
    t.row({{"block", static_cast<I>(b)}, {"arrive", step(m.arrive_step[b])}, {"release", step(m.release_step[b])}});
  }
  t.picture = report::timeline_picture("block", "arrive", "release");  // --html draws it
  t.legend.push_back(say("model-timeline.legend"));
  return t;
}

report::Table trace_table(const GpuRun& g, double timer_step_ns) {
  const bool launches = g.barrier == Barrier::relaunch || g.barrier == Barrier::graph;
  report::Table t("timeline", say(launches ? "trace.title-launches" : "trace.title"));
  t.column("block", say("column.block"))
      .column("arrive-ns", say("trace.arrive"), Format::ns)
      .column("release-ns", say("trace.release"), Format::ns)
      .column("waited-ns", say("trace.waited"), Format::ns)
      .column("timeline", say("trace.timeline"));
  std::int64_t t0 = 0, t1 = 0;
  bool any = false;
  for (std::size_t b = 0; b < g.arrive_ns.size(); ++b) {
    if (g.arrive_ns[b] == 0) continue;
    const std::int64_t hi = g.release_ns[b] != 0 ? g.release_ns[b] : g.arrive_ns[b];
    if (!any || g.arrive_ns[b] < t0) t0 = g.arrive_ns[b];
    if (!any || hi > t1) t1 = hi;
    any = true;
  }
  constexpr int kWidth = 40;
  for (std::size_t b = 0; b < g.arrive_ns.size(); ++b) {
    const std::int64_t a = g.arrive_ns[b], r = g.release_ns[b];
    if (a == 0) {
      t.row({{"block", static_cast<I>(b)}, {"timeline", say("trace.never-arrived")}}, report::RowMark::inactive);
      continue;
    }
    if (r == 0) {
      const bool gave_up = b < g.gave_up.size() && g.gave_up[b] != 0;
      t.row({{"block", static_cast<I>(b)},
             {"arrive-ns", a - t0},
             {"timeline", say(gave_up ? "trace.gave-up" : "trace.stopped", {{"timeline", timeline(a, 0, t0, t1, kWidth)}})}});
      continue;
    }
    t.row({{"block", static_cast<I>(b)},
           {"arrive-ns", a - t0},
           {"release-ns", r - t0},
           {"waited-ns", r - a},
           {"timeline", timeline(a, r, t0, t1, kWidth)}});
  }
  t.legend.push_back(say("trace.legend", {{"span", t1 - t0}, {"width", kWidth}}));
  if (timer_step_ns > 0) t.legend.push_back(say("trace.timer-legend", {{"step", report::fixed(timer_step_ns, 0)}}));
  t.legend.push_back(say(launches ? "trace.launches-legend" : "trace.barrier-legend"));
  t.picture = report::timeline_picture("block", "arrive-ns", "release-ns");  // --html draws it
  return t;
}

}  // namespace cudasync::lockfree_barrier
