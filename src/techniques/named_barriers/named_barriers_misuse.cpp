// Part misuse: bar.sync with a bad thread count, run safely. Each case runs in a child process
// (named_barriers_misuse_child.hpp) started when the run begins; the part shows the model's
// readings of the count and, on a GPU, what the child saw.
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

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
  report::Table t(id + "-model", tag + "the reference model" +
                                     std::string(multiple ? "" : ": the count is undefined, two readings"));
  t.column("reading", "count read as").column("phases", "warps released together");
  t.column("rescues", "rescue arrivals needed").column("without-rescue", "without them");
  std::vector<MisusePrediction> predictions;
  for (CountRule r : rules) {
    const MisusePrediction p = predict_misuse(c, r);
    predictions.push_back(p);
    const int needed = needed_threads(c.count, c.arrive_threads, r);
    t.row({{"reading", std::to_string(needed) + " threads" + (multiple ? "" : std::string(" (") + to_string(r) + ")")},
           {"phases", sizes_text(p.phase_sizes)},
           {"rescues", static_cast<I>(p.rescues)},
           {"without-rescue", std::string(p.hangs_without_rescue() ? "hangs forever" : "finishes")}});
  }
  s.add(std::move(t));
  return predictions;
}

void add_observation(report::Section& s, const MisuseCase& c, int barrier, const MisuseOutcome& o,
                     const std::vector<MisusePrediction>& predictions, const std::string& tag, const std::string& id) {
  const MisuseObservation& seen = o.seen;
  report::Table t(id + "-gpu", tag + "what the GPU did (%globaltimer, ns after warp 0 arrived)");
  t.column("warp", "warp").column("arrived", "arrived", Format::ns).column("left", "left", Format::ns);
  t.column("waited", "waited", Format::ns).column("released-by", "released by");
  for (std::size_t w = 0; w < seen.arrive_ns.size(); ++w) {
    const long long a = seen.arrive_ns[w], l = seen.leave_ns[w];
    const int by = released_by(seen, w);
    t.row({{"warp", static_cast<I>(w)}, {"arrived", static_cast<I>(a)}, {"left", static_cast<I>(l)},
           {"waited", static_cast<I>(l - a)},
           {"released-by", by == 0 ? std::string("its phase completing") : "rescue arrival " + std::to_string(by)}});
  }
  for (std::size_t k = 0; k < seen.rescue_ns.size(); ++k)
    t.legend.push_back("rescue arrival " + std::to_string(k + 1) + " (bar.arrive " + std::to_string(barrier) + ", " +
                       std::to_string(c.count) + ") at " +
                       report::format_value(static_cast<I>(seen.rescue_ns[k]), Format::ns, true));
  s.add(std::move(t));
  std::vector<int> sizes;
  for (const auto& g : observed_phases(seen)) sizes.push_back(static_cast<int>(g.size()));
  const int rescues = static_cast<int>(seen.rescue_ns.size());
  s.fact(id + "-observed", tag + "observed",
         sizes_text(sizes) + " warps released together, " + std::to_string(rescues) + " rescue arrivals",
         Format::plain, "child process: " + report::fixed(o.seconds, 2) + " s");
  s.check(id + "-nothing-hung", tag + "nothing hung: every waiting warp was released and the child process finished",
          true, std::to_string(seen.arrive_ns.size()) + " warps released, " + std::to_string(rescues) +
                    " by rescue arrivals");
  const auto matched = matched_prediction(predictions, seen);
  const std::string call = "bar.sync " + std::to_string(barrier) + ", " + std::to_string(c.count);
  if (c.count % kWarpSize == 0)
    s.agreement(id + "-gpu-agrees", tag + call + " with " + std::to_string(c.arrive_threads) + " threads arriving",
                matched.has_value(),
                "model: " + std::to_string(predictions.front().rescues) + " rescue arrivals needed; GPU: " +
                    std::to_string(rescues));
  else if (matched)
    s.note(tag + "this GPU behaved as if the count " + std::to_string(c.count) + " were " + to_string(matched->rule) +
           ". The PTX ISA promises nothing here: another GPU or driver may differ.");
  else
    s.note(tag + "this GPU matched neither reading of the count; the PTX ISA promises nothing here.");
}

}  // namespace

report::Section misuse_section(const std::vector<MisuseCase>& cases, int barrier,
                               const std::vector<std::optional<MisuseOutcome>>& gpu, bool gpu_run) {
  report::Section s("misuse", "misuse, safely: bar.sync with a bad thread count");
  s.paragraph(
      "The PTX ISA requires a thread count that is a multiple of 32, and a barrier completes only when that many "
      "threads have arrived. A count larger than the threads that arrive therefore waits forever, and a hardware "
      "barrier cannot be interrupted: no software deadline reaches a warp inside bar.sync.");
  s.paragraph(
      "So this part runs in a child process (this binary, started with a hidden option) that the parent waits for "
      "with a timeout, and inside its kernel rescue warps watch the waiting warps: if they are still inside the "
      "barrier after a settle time, one rescue warp adds 32 arrivals with bar.arrive (a legal arrival), and the next "
      "watches again. Nothing can hang the terminal, and whatever a bad count does to the GPU happens to the child's "
      "CUDA context, not this one.");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const MisuseCase& c = cases[i];
    const std::string tag = "case " + std::to_string(i) + ": ", id = "case-" + std::to_string(i);
    s.fact(id, tag + "bar.sync " + std::to_string(barrier) + ", " + std::to_string(c.count),
           std::to_string(c.arrive_threads) + " threads arrive (" + std::to_string(c.waiting_warps()) +
               " warps, 20 us apart)",
           Format::plain, std::to_string(c.rescue_warps()) + " rescue warps");
    const auto predictions = add_model(s, c, tag, id);
    if (!gpu_run || i >= gpu.size() || !gpu[i]) continue;
    const MisuseOutcome& o = *gpu[i];
    if (o.status == MisuseOutcome::Status::ok) {
      add_observation(s, c, barrier, o, predictions, tag, id);
      continue;
    }
    const bool safe = o.status == MisuseOutcome::Status::cuda_error;
    s.check(id + "-nothing-hung", tag + "nothing hung: the child process finished and this process is unaffected", safe,
            std::string(to_string(o.status)) + ": " + o.message);
    if (safe)
      s.note(tag + "the GPU stopped the kernel with an error (" + o.message +
             "); that error would have made this process's CUDA context unusable, which is why the part runs in a "
             "child process");
  }
  if (!gpu_run) s.note("what a real GPU does with these counts needs a GPU; the model shows the readings");
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
