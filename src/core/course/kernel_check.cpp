#include "core/course/kernel_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "core/course/kernel_judge.hpp"
#include "core/course/student_kernel.hpp"
#include "core/lesson_texts.hpp"
#include "core/sanitizer_path.hpp"
#include "core/words/words.hpp"

namespace cudasync::course {

namespace {

using I = std::int64_t;

constexpr std::size_t kExamples = 3;      // wrong threads named in the reason
constexpr std::size_t kWrongRows = 32;    // wrong threads shown in the table
constexpr int kMaxDelayNs = 20000;        // a warp's injected delay: up to 20 us
// Compile, CUDA start-up, the PTX model and every launch together (about 2 s on an H200); past it
// the child is ended and the program named as a hang, so that a check takes at most about 10 s.
constexpr std::chrono::milliseconds kCheckDeadline{9000};
// One compute-sanitizer run of one launch: the tools are slower than the launch itself.
constexpr std::chrono::milliseconds kSanitizerDeadline{20000};

const char* const kDelayNames[] = {"none", "before", "after"};

std::string in_lang(words::Lang lang, std::string_view key, const words::Args& args = {}) {
  return words::say_in(lang, "core", key, args);
}

std::vector<std::int32_t> inputs(const KernelSpec& spec, int threads, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int32_t> pick(spec.input_min, spec.input_max);
  std::vector<std::int32_t> in(static_cast<std::size_t>(threads));
  for (auto& v : in) v = pick(gen);
  return in;
}

// A random delay for about half the warps, at `point` (0 before, 1 after the student's code).
std::vector<std::int32_t> delays(int grid, int block, int point, std::uint64_t seed) {
  const std::size_t warps = static_cast<std::size_t>(grid) * static_cast<std::size_t>((block + 31) / 32);
  std::vector<std::int32_t> d(2 * warps, 0);
  std::mt19937_64 gen(seed ^ 0x9e3779b97f4a7c15ull);
  for (std::size_t w = 0; w < warps; ++w)
    if (gen() % 2 == 0) d[static_cast<std::size_t>(point) * warps + w] = static_cast<std::int32_t>(gen() % kMaxDelayNs);
  return d;
}

std::string replay(const KernelRequest& r, std::uint64_t seed) {
  return "cudasync exercise " + r.lesson + " " + std::to_string(r.exercise->number) + " --kernel " + r.file +
         " --seed " + std::to_string(seed);
}

// The compute-sanitizer tools the last hunt runs: CUDASYNC_KERNEL_SANITIZERS (a comma list; empty:
// none), else racecheck, synccheck and memcheck. The mutation test sets it to none for the seeds
// after a reference's first, where the sanitizers would only repeat themselves.
std::vector<std::string> sanitizer_tools() {
  const char* env = std::getenv("CUDASYNC_KERNEL_SANITIZERS");
  if (env == nullptr) return {"racecheck", "synccheck", "memcheck"};
  std::vector<std::string> tools;
  std::string one;
  for (const char* c = env;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (one == "racecheck" || one == "synccheck" || one == "memcheck" || one == "initcheck") tools.push_back(one);
      one.clear();
      if (*c == '\0') break;
    } else {
      one += *c;
    }
  }
  return tools;
}

std::string shape_text(const KernelLaunch& l) { return std::to_string(l.grid) + " x " + std::to_string(l.block); }

// The reason's sentence for what the wrong threads returned, when they all look alike.
const char* looks_key(const std::vector<WrongThread>& wrong) {
  if (wrong.empty()) return nullptr;
  const std::string& first = wrong.front().looks_like;
  if (first.empty()) return nullptr;
  for (const auto& w : wrong)
    if (w.looks_like != first) return nullptr;
  if (first == "own-value") return "kernel.looks.own-value";
  if (first == "zero") return "kernel.looks.zero";
  if (first == "warp-sum") return "kernel.looks.warp-sum";
  if (first == "repeated") return "kernel.looks.repeated";
  if (first == "first-only") return "kernel.looks.first-only";
  return nullptr;
}

}  // namespace

std::vector<PlannedLaunch> plan_launches(const KernelSpec& spec, std::uint64_t seed) {
  std::vector<PlannedLaunch> plan;
  for (std::size_t s = 0; s < spec.shapes.size(); ++s) {
    const auto [grid, block] = spec.shapes[s];
    for (int k = 0; k < kCheckSeeds; ++k) {
      const std::uint64_t sd = seed + static_cast<std::uint64_t>(k);
      for (int pattern = 0; pattern < 3; ++pattern) {
        PlannedLaunch p;
        p.seed = sd;
        p.delays = pattern;
        p.launch.grid = grid;
        p.launch.block = block;
        p.launch.in = inputs(spec, grid * block, sd * 31 + s);
        if (pattern > 0) p.launch.delays = delays(grid, block, pattern - 1, sd * 131 + s * 7 + static_cast<std::uint64_t>(pattern));
        plan.push_back(std::move(p));
      }
    }
  }
  return plan;
}

std::vector<int> model_launches(const std::vector<PlannedLaunch>& plan) {
  std::vector<int> runs;
  int smallest = -1;
  const auto threads = [&](int i) { return plan[static_cast<std::size_t>(i)].launch.grid * plan[static_cast<std::size_t>(i)].launch.block; };
  for (int i = 0; i < static_cast<int>(plan.size()); i += kCheckSeeds * 3) {
    if (threads(i) <= kModelThreads) runs.push_back(i);
    if (smallest < 0 || threads(i) < threads(smallest)) smallest = i;
  }
  if (runs.empty() && smallest >= 0) runs.push_back(smallest);
  return runs;
}

KernelOutcome check_kernel(const KernelRequest& request) {
  const Exercise& e = *request.exercise;
  const KernelSpec& spec = e.spec;
  const auto harness = find_lesson_starter(request.lesson, spec.harness);
  if (!harness) throw std::logic_error("exercise: no embedded harness lessons/" + request.lesson + "/" + spec.harness);
  const std::uint64_t seed = request.ctx->seed;
  const std::vector<PlannedLaunch> plan = plan_launches(spec, seed);

  StudentKernel k;
  k.file = request.file;
  k.source = program_source(request.file, read_student_file(request.file), std::string(*harness));
  for (const auto& p : plan) k.runs.push_back(p.launch);
  k.scratch = spec.scratch;
  k.model_runs = model_launches(plan);
  k.model_gpus = spec.model_gpus;
  k.memory_stress = spec.memory_stress;
  const StudentKernelResult r = run_student_kernel(*request.ctx, k, kCheckDeadline);
  if (auto unfinished = unfinished_outcome(r, request.file)) {
    unfinished->on_ptx_model = r.on_model;
    if (r.status == StudentKernelResult::Status::failed && r.failed_run >= 0) {
      const PlannedLaunch& p = plan[static_cast<std::size_t>(r.failed_run)];
      for (words::Lang lang : {words::Lang::en, words::Lang::zh})
        (lang == words::Lang::en ? unfinished->verdict.reason.en : unfinished->verdict.reason.zh) +=
            in_lang(lang, "kernel.in-launch", {{"shape", shape_text(p.launch)}, {"seed", p.seed},
                                               {"command", replay(request, seed)}});
    }
    if (r.status == StudentKernelResult::Status::timeout || r.status == StudentKernelResult::Status::model_finding)
      for (words::Lang lang : {words::Lang::en, words::Lang::zh})
        (lang == words::Lang::en ? unfinished->verdict.reason.en : unfinished->verdict.reason.zh) +=
            in_lang(lang, "kernel.replay", {{"command", replay(request, seed)}});
    return *unfinished;
  }

  // Which launch each output belongs to: every launch on the GPU; the model's launches without one.
  std::vector<int> judged;
  if (r.on_model) judged = k.model_runs;
  else for (int i = 0; i < static_cast<int>(plan.size()); ++i) judged.push_back(i);

  KernelOutcome o;
  o.on_ptx_model = r.on_model;
  report::Section s("kernel", words::core("kernel.title"));
  s.fact("file", words::core("kernel.file"), request.file);
  report::Table runs("launches", words::core("kernel.launches-title"));
  runs.column("launch", "#", report::Format::count)
      .column("on", words::core("kernel.on"))
      .column("shape", words::core("kernel.shape"))
      .column("seed", words::core("kernel.seed"), report::Format::count)
      .column("delays", words::core("kernel.delays"))
      .column("checked", words::core("kernel.checked"), report::Format::count)
      .column("wrong", words::core("kernel.wrong"), report::Format::count);
  int first_wrong = -1;
  LaunchJudgement first_judgement;
  std::size_t wrong_launches = 0;
  for (std::size_t n = 0; n < judged.size() && n < r.outs.size(); ++n) {
    const PlannedLaunch& p = plan[static_cast<std::size_t>(judged[n])];
    const LaunchJudgement j = judge_launch(spec.expect, p.launch.grid, p.launch.block, p.launch.in, r.outs[n]);
    runs.row({{"launch", static_cast<I>(judged[n] + 1)},
              {"on", r.on_model ? std::string("ptx-model") : std::string("gpu")},
              {"shape", shape_text(p.launch)},
              {"seed", static_cast<I>(p.seed)},
              {"delays", std::string(kDelayNames[p.delays])},
              {"checked", static_cast<I>(j.checked)},
              {"wrong", static_cast<I>(j.wrong.size())}},
             report::RowMark::none);
    if (j.wrong.empty()) continue;
    ++wrong_launches;
    if (first_wrong < 0) {
      first_wrong = judged[n];
      first_judgement = j;
    }
  }
  runs.legend.push_back(words::core("kernel.launches-legend"));
  const bool model_ran = r.on_model || r.model_skipped.empty();
  s.fact("gpu-launches", words::core("kernel.gpu-launches"), static_cast<I>(r.on_model ? 0 : judged.size()),
         report::Format::count);
  s.fact("model-launches", words::core("kernel.model-launches"), static_cast<I>(model_ran ? k.model_runs.size() : 0),
         report::Format::count, words::core("kernel.model-schedules", {{"schedules", r.model_schedules}}));
  if (spec.memory_stress && !r.on_model)
    s.fact("memory-stress", words::core("kernel.memory-stress"), words::core("kernel.memory-stress-every"));
  s.fact("wrong-launches", words::core("kernel.wrong-launches"), static_cast<I>(wrong_launches), report::Format::count);
  // The PTX model beside the GPU: the same launches (the first of each shape, no delays) give the
  // same values in every checked thread.
  if (!r.on_model && !r.model_outs.empty()) {
    std::size_t same = 0;
    for (std::size_t m = 0; m < r.model_outs.size() && m < k.model_runs.size(); ++m) {
      const std::size_t i = static_cast<std::size_t>(k.model_runs[m]);
      if (i < r.outs.size() && same_outputs(spec.expect, plan[i].launch.block, r.outs[i], r.model_outs[m])) ++same;
    }
    s.fact("model-agrees", words::core("kernel.model-agrees"),
           same == r.model_outs.size() ? std::string("yes") : std::string("no"), report::Format::plain,
           words::core("kernel.model-agrees-of", {{"same", same}, {"launches", r.model_outs.size()}}));
  }
  if (!r.finding.empty()) {
    s.fact("finding", words::core("kernel.finding"), r.finding);
    s.paragraph(r.finding_log);
  }
  if (!r.on_model && !r.model_skipped.empty())
    s.note(words::core("kernel.model-skipped", {{"why", r.model_skipped}}));
  s.add(std::move(runs));

  std::string examples_en, examples_zh;
  if (first_wrong >= 0) {
    const PlannedLaunch& p = plan[static_cast<std::size_t>(first_wrong)];
    report::Table t("wrong-threads", words::core("kernel.wrong-title", {{"launch", first_wrong + 1}}));
    t.column("thread", words::core("kernel.thread"), report::Format::count)
        .column("block", "block", report::Format::count)
        .column("tid", "threadIdx.x", report::Format::count)
        .column("got", words::core("kernel.got"), report::Format::count)
        .column("expected", words::core("kernel.expected"));
    std::size_t n = 0;
    for (const WrongThread& w : first_judgement.wrong) {
      const int block = w.thread / p.launch.block, tid = w.thread % p.launch.block;
      if (n < kWrongRows)
        t.row({{"thread", static_cast<I>(w.thread)}, {"block", static_cast<I>(block)}, {"tid", static_cast<I>(tid)},
               {"got", static_cast<I>(w.got)},
               {"expected", w.expected ? std::to_string(*w.expected) : words::core("kernel.a-ticket-once")}},
              report::RowMark::none);
      if (n < kExamples) {
        const auto example = [&](words::Lang lang) {
          return w.expected ? in_lang(lang, "kernel.example", {{"block", block}, {"tid", tid}, {"got", w.got},
                                                                {"expected", *w.expected}})
                            : in_lang(lang, "kernel.example-ticket", {{"block", block}, {"tid", tid}, {"got", w.got}});
        };
        examples_en += (n > 0 ? "; " : "") + example(words::Lang::en);
        examples_zh += (n > 0 ? "；" : "") + example(words::Lang::zh);
      }
      ++n;
    }
    if (first_judgement.wrong.size() > kWrongRows)
      t.legend.push_back(words::core("kernel.more-rows", {{"more", first_judgement.wrong.size() - kWrongRows}}));
    s.add(std::move(t));
  }
  o.sections.push_back(std::move(s));

  o.verdict.right = first_wrong < 0 && r.finding.empty();
  // The last hunt, where the machine has compute-sanitizer: one launch under racecheck, synccheck
  // and memcheck, whose reports name the student's file and line (-lineinfo). Only for a program
  // the GPU and the model found right: a wrong one already has its reason.
  std::vector<SanitizerOutcome> sanitized;
  std::string looked;
  if (o.verdict.right && !r.on_model && !sanitizer_tools().empty())
    if (const auto tool = find_compute_sanitizer(looked)) {
      StudentKernel one = k;
      one.runs = {plan.front().launch};
      one.memory_stress = false;  // the sanitizers would report the stress kernel's own races
      report::Table t("sanitizer", words::core("kernel.sanitizer-title"));
      t.column("tool", "compute-sanitizer").column("errors", words::core("kernel.errors"), report::Format::count)
          .column("report", words::core("kernel.first-report"));
      for (const std::string& name : sanitizer_tools()) {
        sanitized.push_back(sanitize_student_kernel(*request.ctx, one, *tool, name, kSanitizerDeadline));
        const SanitizerOutcome& so = sanitized.back();
        t.row({{"tool", name}, {"errors", static_cast<I>(so.errors)},
               {"report", so.ran ? so.first : words::core("kernel.sanitizer-did-not-run", {{"why", so.why_not}})}});
      }
      o.sections.front().add(std::move(t));
    }
  const SanitizerOutcome* flagged = nullptr;
  for (const auto& so : sanitized)
    if (so.ran && so.errors > 0 && !flagged) flagged = &so;
  if (flagged) o.verdict.right = false;
  const std::size_t model_count = model_ran ? k.model_runs.size() : 0;
  for (words::Lang lang : {words::Lang::en, words::Lang::zh}) {
    std::string reason;
    if (o.verdict.right) {
      reason = r.on_model ? in_lang(lang, "kernel.right-on-model", {{"launches", model_count}, {"schedules", r.model_schedules}})
                          : in_lang(lang, "kernel.right-on-gpu", {{"launches", judged.size()}, {"shapes", spec.shapes.size()},
                                                                  {"model", model_count}, {"schedules", r.model_schedules}});
      if (!sanitized.empty()) reason += in_lang(lang, "kernel.sanitizer-clean");
    } else if (first_wrong >= 0) {
      const PlannedLaunch& p = plan[static_cast<std::size_t>(first_wrong)];
      const char* looks = looks_key(first_judgement.wrong);
      reason = in_lang(lang, "kernel.wrong-values",
                       {{"on", in_lang(lang, r.on_model ? "kernel.on-model" : "kernel.on-gpu")},
                        {"launch", first_wrong + 1}, {"shape", shape_text(p.launch)}, {"seed", p.seed},
                        {"delays", kDelayNames[p.delays]}, {"wrong", first_judgement.wrong.size()},
                        {"checked", first_judgement.checked},
                        {"examples", lang == words::Lang::en ? examples_en : examples_zh},
                        {"more", first_judgement.wrong.size() > kExamples ? (lang == words::Lang::en ? "; ..." : "；……") : ""}});
      const std::string gap = lang == words::Lang::en ? " " : "";
      if (looks) reason += gap + in_lang(lang, looks);
      if (!r.finding.empty())
        reason += gap + in_lang(lang, "kernel.model-also", {{"finding", r.finding}, {"what", r.finding_log}});
    } else if (flagged) {
      reason = in_lang(lang, "kernel.sanitizer-found", {{"launches", judged.size()}, {"tool", flagged->tool},
                                                         {"errors", flagged->errors}, {"report", flagged->first}});
    } else {
      reason = in_lang(lang, "kernel.gpu-right-model-not", {{"launches", judged.size()}, {"finding", r.finding},
                                                             {"what", r.finding_log}});
    }
    if (!o.verdict.right) reason += in_lang(lang, "kernel.replay", {{"command", replay(request, seed)}});
    (lang == words::Lang::en ? o.verdict.reason.en : o.verdict.reason.zh) = reason;
  }
  if (r.on_model) o.sections.front().note(words::core("course.ran-on-ptx-model"));
  o.with_ptx_model = !r.on_model && model_ran;
  return o;
}

}  // namespace cudasync::course
