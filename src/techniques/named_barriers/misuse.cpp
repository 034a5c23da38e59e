// named-barriers' misuse part: bar.sync with a bad thread count, run safely. Each case runs in a child
// process (the protocol in lesson.hpp) started when the run begins; the part shows the model's
// readings of the count and, on a GPU, what the child saw.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/errors.hpp"
#include "core/number_list.hpp"
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/lesson.hpp"

namespace cudasync::named_barriers {

// ---- the model and the judges ----------------------------------------------------------------------

MisusePrediction predict_misuse(const MisuseCase& c, CountRule rule) {
  MisusePrediction p;
  p.rule = rule;
  // Waiting warps arrive one after another (the kernel staggers them), so a phase that a warp
  // completes is over before the next warp arrives.
  const int needed = needed_threads(c.count, c.waiting_warps() * kWarpSize, rule);
  int in_phase = 0;
  for (int w = 0; w < c.waiting_warps(); ++w) {
    in_phase += kWarpSize;
    if (in_phase >= needed) {
      p.phase_sizes.push_back(in_phase / kWarpSize);
      in_phase = 0;
    }
  }
  if (in_phase > 0) {
    p.rescues = (needed - in_phase + kWarpSize - 1) / kWarpSize;
    p.phase_sizes.push_back(in_phase / kWarpSize);  // released by the rescue arrivals
  }
  return p;
}

std::vector<std::vector<int>> observed_phases(const MisuseObservation& o) {
  std::vector<int> order(o.arrive_ns.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return o.arrive_ns[static_cast<std::size_t>(a)] < o.arrive_ns[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<int>> groups;
  for (int w : order) {
    const auto wi = static_cast<std::size_t>(w);
    if (!groups.empty() && o.arrive_ns[wi] < o.leave_ns[static_cast<std::size_t>(groups.back().front())]) {
      groups.back().push_back(w);
      continue;
    }
    groups.push_back({w});
  }
  return groups;
}

int released_by(const MisuseObservation& o, std::size_t warp) {
  const long long left = o.leave_ns[warp];
  int by = 0;
  for (std::size_t k = 0; k < o.rescue_ns.size(); ++k)
    if (left >= o.rescue_ns[k] && (k + 1 == o.rescue_ns.size() || left < o.rescue_ns[k + 1])) by = static_cast<int>(k) + 1;
  return by;
}

std::optional<MisusePrediction> matched_prediction(const std::vector<MisusePrediction>& predictions,
                                                   const MisuseObservation& o) {
  std::vector<int> sizes;
  for (const auto& g : observed_phases(o)) sizes.push_back(static_cast<int>(g.size()));
  const int rescues = static_cast<int>(o.rescue_ns.size());
  std::optional<MisusePrediction> matched;
  for (const auto& p : predictions)
    if (p.phase_sizes == sizes && p.rescues == rescues) matched = p;
  return matched;
}

// ---- the child's protocol ---------------------------------------------------------------------------

const char* to_string(MisuseOutcome::Status s) {
  const char* const names[] = {"ok", "cuda_error", "timeout", "crashed"};  // Status's order
  return names[static_cast<int>(s)];
}

std::string format_observation(const MisuseObservation& o) {
  return "ok count=" + std::to_string(o.c.count) + " arrive=" + std::to_string(o.c.arrive_threads) +
         " arrive_ns=" + join_numbers(o.arrive_ns) + " leave_ns=" + join_numbers(o.leave_ns) +
         " rescue_ns=" + join_numbers(o.rescue_ns) + "\n";
}

std::string format_cuda_error(const std::string& message) {
  std::string m = message;
  std::replace(m.begin(), m.end(), '\n', ' ');
  return "cuda_error " + m + "\n";
}

bool parse_child_output(const std::string& text, MisuseOutcome& out) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("cuda_error ", 0) == 0) {
    out.status = MisuseOutcome::Status::cuda_error;
    out.message = line.substr(11);
    return true;
  }
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != "ok") return false;
  MisuseObservation o;
  bool have[5] = {false, false, false, false, false};
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    std::vector<long long> nums;
    if (!split_numbers(value, nums)) return false;
    if (key == "count" && nums.size() == 1) o.c.count = static_cast<int>(nums[0]), have[0] = true;
    else if (key == "arrive" && nums.size() == 1) o.c.arrive_threads = static_cast<int>(nums[0]), have[1] = true;
    else if (key == "arrive_ns") o.arrive_ns = nums, have[2] = true;
    else if (key == "leave_ns") o.leave_ns = nums, have[3] = true;
    else if (key == "rescue_ns") o.rescue_ns = nums, have[4] = true;
    else return false;
  }
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; })) return false;
  const auto warps = static_cast<std::size_t>(o.c.waiting_warps());
  if (o.arrive_ns.size() != warps || o.leave_ns.size() != warps) return false;
  out.status = MisuseOutcome::Status::ok;
  out.seen = o;
  return true;
}

std::vector<std::string> misuse_child_args(const MisuseCase& c, int id) {
  const int other = id == kBarrierCount - 1 ? id - 1 : id + 1;
  return {"--count", std::to_string(c.count), "--arrive", std::to_string(c.arrive_threads),
          "--barrier-ids", std::to_string(id) + "," + std::to_string(other)};
}

MisuseOutcome misuse_outcome(const MisuseCase& c, const ChildResult& r) {
  MisuseOutcome out;
  out.c = c;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::timeout) {
    out.status = MisuseOutcome::Status::timeout;
    out.message = r.message;
    return out;
  }
  if (r.status != ChildResult::Status::lost && parse_child_output(r.output, out)) return out;
  out.status = MisuseOutcome::Status::crashed;
  out.message = r.describe();
  return out;
}

// ---- the part -----------------------------------------------------------------------------------------

namespace {

using I = std::int64_t;
using report::Format;

std::string sizes_text(const std::vector<int>& sizes) {
  std::string s;
  for (int z : sizes) s += (s.empty() ? "" : " + ") + std::to_string(z);
  return s;
}

std::vector<MisusePrediction> add_model(report::Section& s, const MisuseCase& c, const std::string& tag,
                                        const std::string& id) {
  const bool multiple = c.count % kWarpSize == 0;
  const std::vector<CountRule> rules = multiple ? std::vector<CountRule>{CountRule::exact}
                                                : std::vector<CountRule>{CountRule::round_up, CountRule::round_down};
  report::Table t(id + "-model", tag + say(multiple ? "misuse.model-title" : "misuse.model-title-undefined"));
  t.column("reading", say("misuse.reading")).column("phases", say("misuse.released-together"));
  t.column("rescues", say("misuse.rescues-needed")).column("without-rescue", say("misuse.without-rescue"));
  std::vector<MisusePrediction> predictions;
  for (CountRule r : rules) {
    const MisusePrediction p = predict_misuse(c, r);
    predictions.push_back(p);
    const int needed = needed_threads(c.count, c.arrive_threads, r);
    t.row({{"reading", multiple ? say("misuse.threads", {{"threads", needed}})
                                : say("misuse.threads-rule", {{"threads", needed}, {"rule", to_string(r)}})},
           {"phases", sizes_text(p.phase_sizes)},
           {"rescues", static_cast<I>(p.rescues)},
           {"without-rescue", say(p.hangs_without_rescue() ? "misuse.hangs-forever" : "misuse.finishes")}});
  }
  s.add(std::move(t));
  return predictions;
}

void add_observation(report::Section& s, const MisuseCase& c, int barrier, const MisuseOutcome& o,
                     const std::vector<MisusePrediction>& predictions, const std::string& tag, const std::string& id) {
  const MisuseObservation& seen = o.seen;
  report::Table t(id + "-gpu", tag + say("misuse.gpu-title"));
  t.column("warp", say("phases.warp")).column("arrived", say("misuse.arrived"), Format::ns);
  t.column("left", say("misuse.left"), Format::ns);
  t.column("waited", say("misuse.waited"), Format::ns).column("released-by", say("misuse.released-by"));
  for (std::size_t w = 0; w < seen.arrive_ns.size(); ++w) {
    const long long a = seen.arrive_ns[w], l = seen.leave_ns[w];
    const int by = released_by(seen, w);
    t.row({{"warp", static_cast<I>(w)}, {"arrived", static_cast<I>(a)}, {"left", static_cast<I>(l)},
           {"waited", static_cast<I>(l - a)},
           {"released-by", by == 0 ? say("misuse.own-phase") : say("misuse.rescue-arrival", {{"number", by}})}});
  }
  for (std::size_t k = 0; k < seen.rescue_ns.size(); ++k)
    t.legend.push_back(say("misuse.rescue-legend",
                           {{"number", k + 1}, {"barrier", barrier}, {"count", c.count},
                            {"at", report::format_value(static_cast<I>(seen.rescue_ns[k]), Format::ns, true)}}));
  s.add(std::move(t));
  std::vector<int> sizes;
  for (const auto& g : observed_phases(seen)) sizes.push_back(static_cast<int>(g.size()));
  const int rescues = static_cast<int>(seen.rescue_ns.size());
  s.fact(id + "-observed", tag + say("misuse.observed"),
         say("misuse.observed-value", {{"sizes", sizes_text(sizes)}, {"rescues", rescues}}), Format::plain,
         say("misuse.child-seconds", {{"seconds", report::fixed(o.seconds, 2)}}));
  s.check(id + "-nothing-hung", tag + say("misuse.nothing-hung"), true,
          say("misuse.nothing-hung-detail", {{"warps", seen.arrive_ns.size()}, {"rescues", rescues}}));
  const auto matched = matched_prediction(predictions, seen);
  const std::string call = "bar.sync " + std::to_string(barrier) + ", " + std::to_string(c.count);
  if (c.count % kWarpSize == 0)
    s.agreement(id + "-gpu-agrees", tag + say("misuse.call-arriving", {{"call", call}, {"threads", c.arrive_threads}}),
                matched.has_value(),
                say("misuse.agrees-detail", {{"model", predictions.front().rescues}, {"gpu", rescues}}));
  else if (matched)
    s.note(tag + say("misuse.behaved-as", {{"count", c.count}, {"rule", to_string(matched->rule)}}));
  else
    s.note(tag + say("misuse.matched-neither"));
}

}  // namespace

report::Section misuse_section(const std::vector<MisuseCase>& cases, int barrier,
                               const std::vector<std::optional<MisuseOutcome>>& gpu, bool gpu_run) {
  report::Section s("misuse", say("misuse.title"));
  s.paragraph(say("misuse.about"));
  s.paragraph(say("misuse.child-about"));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MisuseCase& c = cases[i];
    const std::string tag = say("misuse.case-tag", {{"case", i}}), id = "case-" + std::to_string(i);
    s.fact(id, tag + "bar.sync " + std::to_string(barrier) + ", " + std::to_string(c.count),
           say("misuse.case-value", {{"threads", c.arrive_threads}, {"warps", c.waiting_warps()}}), Format::plain,
           say("misuse.rescue-warps", {{"warps", c.rescue_warps()}}));
    const auto predictions = add_model(s, c, tag, id);
    if (!gpu_run || i >= gpu.size() || !gpu[i]) continue;
    const MisuseOutcome& o = *gpu[i];
    if (o.status == MisuseOutcome::Status::ok) {
      add_observation(s, c, barrier, o, predictions, tag, id);
      continue;
    }
    const bool safe = o.status == MisuseOutcome::Status::cuda_error;
    s.check(id + "-nothing-hung", tag + say("misuse.nothing-hung-child"), safe,
            std::string(to_string(o.status)) + ": " + o.message);
    if (safe) s.note(tag + say("misuse.gpu-error", {{"message", o.message}}));
  }
  if (!gpu_run) s.note(say("misuse.needs-gpu"));
  return s;
}

report::Section misuse_part(Run& run) {
  std::vector<std::optional<MisuseOutcome>> outcomes;
  for (MisuseChild& child : run.misuse_children) {
    if (child.process) {
      outcomes.emplace_back(misuse_outcome(child.c, child.process->finish()));
      continue;
    }
    MisuseOutcome failed;
    failed.c = child.c;
    failed.message = child.start_error;
    outcomes.emplace_back(failed);
  }
  return misuse_section(run.in.misuse, run.in.misuse_id, outcomes, run.ctx.gpu);
}

std::string misuse_child(Run& run) {
  const MisuseCase& c = run.in.misuse.front();  // the parent passes one case: --count, --arrive
  try {
    return format_observation(gpu_misuse(c, run.in.misuse_id, MisuseTiming{}));
  } catch (const Error& e) {
    return format_cuda_error(e.what());
  }
}

}  // namespace cudasync::named_barriers
