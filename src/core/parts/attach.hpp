#pragma once
// Wires a lesson's part table (core/parts/lesson.hpp) to the command line and to the run path:
// main's table holds `parts::command(lesson::lesson())`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "core/cli/command.hpp"
#include "core/course/built_in_manifest.hpp"
#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/parts/child.hpp"
#include "core/parts/lesson.hpp"
#include "core/parts/option_binder.hpp"
#include "core/parts/selection.hpp"
#include "core/parts/summary.hpp"
#include "core/shared_gpu.hpp"
#include "core/words/words.hpp"

namespace cudasync::parts {

template <class Options, class Run>
std::vector<PartSummary> summaries(const Lesson<Options, Run>& lesson);

namespace detail {

// For each of a manifest's `rows`, the entry of the lesson's `code` with the same id (`row_id`,
// `code_id` read them). A row without code, or code without a row, is a fault of the build, met by
// every test that builds the command line: `what` names the kind ("part", "prediction").
template <class Row, class Code, class RowId, class CodeId>
std::vector<const Code*> code_by_id(const std::vector<Row>& rows, const std::vector<Code>& code, RowId row_id,
                                    CodeId code_id, const std::string& lesson, const std::string& what) {
  const std::string file = course::built_in_manifest(lesson).file;
  std::vector<const Code*> out;
  for (const Row& row : rows) {
    const auto c = std::find_if(code.begin(), code.end(), [&](const Code& x) { return code_id(x) == row_id(row); });
    if (c == code.end()) throw std::logic_error(file + ": " + what + " " + row_id(row) + " has no code in " + lesson);
    out.push_back(&*c);
  }
  for (const Code& c : code)
    if (std::none_of(rows.begin(), rows.end(), [&](const Row& row) { return row_id(row) == code_id(c); }))
      throw std::logic_error(lesson + "'s code has " + what + " " + code_id(c) + ", which " + file + " does not declare");
  return out;
}

}  // namespace detail

// The lesson's parts, in its manifest's order: each row of "parts" with the function the lesson's
// code gives for its id.
template <class Options, class Run>
const std::vector<Part<Run>>& parts_of(const Lesson<Options, Run>& lesson) {
  // Once per lesson: every lesson has types of its own.
  static const std::vector<Part<Run>> parts = [&lesson] {
    const course::Manifest& m = course::built_in_manifest(lesson.id);
    const auto code = detail::code_by_id(
        m.parts, lesson.parts, [](const course::PartSpec& r) { return r.id; }, [](const PartRun<Run>& c) { return c.id; },
        lesson.id, "part");
    std::vector<Part<Run>> out;
    for (std::size_t i = 0; i < m.parts.size(); ++i) {
      const course::PartSpec& row = m.parts[i];
      out.push_back({row.id, row.reads, row.needs_gpu, row.child, row.by_default, code[i]->run, row.former_ids});
    }
    if (m.bench != lesson.bench.has_value())
      throw std::logic_error(lesson.id + ": " + m.file + (m.bench ? " declares a bench the code has not" : " declares no bench, and the code has one"));
    return out;
  }();
  return parts;
}

namespace detail {

template <class Options>
struct Parsed {
  Options options;
  std::vector<std::string> parts;  // --part
  std::string child;               // --child: the hidden child mode
  std::string child_out;           // --child-out
  bool predict = false;            // --predict
  std::string prediction;          // --prediction
  bool brief = false;              // --brief: the one-screen summary alone
  Selection selection;
};

template <class Options, class Run>
std::vector<PartRule> rules(const Lesson<Options, Run>& lesson) {
  std::vector<PartRule> out;
  for (const auto& p : parts_of(lesson)) out.push_back({p.id, p.reads, p.by_default});
  return out;
}

template <class Options, class Run>
std::optional<PartRule> bench_rule(const Lesson<Options, Run>& lesson) {
  if (!lesson.bench) return std::nullopt;
  return PartRule{"--bench", course::built_in_manifest(lesson.id).bench_reads, false};
}

// The lesson options given on this command line, as typed ("--width"); hidden ones left out.
inline std::vector<std::string> given_options(const CLI::App& sub) {
  std::vector<std::string> out;
  for (const CLI::Option* o : sub.get_options()) {
    if (o->count() == 0 || o->get_group().empty() || o->get_lnames().empty()) continue;
    const std::string name = "--" + o->get_lnames().front();
    if (name != "--part" && name != "--help" && name != "--predict" && name != "--prediction" && name != "--brief")
      out.push_back(name);
  }
  return out;
}

template <class Options, class Run>
report::Report run_child(const Lesson<Options, Run>& lesson, Parsed<Options>& p, const RunContext& ctx) {
  const auto c = std::find_if(lesson.children.begin(), lesson.children.end(),
                              [&](const Child<Run>& ch) { return ch.id == p.child; });
  if (c == lesson.children.end()) {
    std::string ids;
    for (const auto& ch : lesson.children) ids += (ids.empty() ? "" : ", ") + ch.id;
    throw UsageError("--child " + p.child + ": no such child mode; accepted: " + ids +
                     " (a part starts them itself: run the part instead)");
  }
  if (!ctx.gpu) throw NoGpuError("--child " + p.child + " runs on the GPU only");
  Run run(p.options, ctx, p.selection);
  write_child_answer(p.child_out, c->run(run));
  report::Report r;
  r.command = lesson.id;
  r.title = lesson.id + ": child " + p.child;
  return r;
}

// The lesson's predictions: each row of its manifest's "predictions" (the part, the answers, other
// words for them) with the truth its code reads, and the questions in the run's language (the
// catalog's prediction.<part>.question, and .question-model where the model is asked another).
template <class Options, class Run>
std::vector<Prediction> worded_predictions(const Lesson<Options, Run>& lesson) {
  const course::Manifest& m = course::built_in_manifest(lesson.id);
  const auto code = code_by_id(
      m.predictions, lesson.predictions, [](const course::PredictionSpec& r) { return r.part; },
      [](const PredictionTruth& c) { return c.part; }, lesson.id, "prediction of part");
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < m.predictions.size(); ++i) {
    const course::PredictionSpec& row = m.predictions[i];
    out.push_back({row.part, words::say(lesson.id, "prediction." + row.part + ".question"), row.choices, code[i]->truth,
                   words::say_or(lesson.id, "prediction." + row.part + ".question-model", ""), row.aliases});
  }
  return out;
}

template <class Options, class Run>
Prediction chosen_prediction(const Lesson<Options, Run>& lesson, std::size_t index) {
  return worded_predictions(lesson)[index];
}

template <class Options, class Run>
report::Report run_lesson(const Lesson<Options, Run>& lesson, Parsed<Options>& p, const RunContext& ctx) {
  if (!p.child.empty()) return run_child(lesson, p, ctx);
  // The student predicts before anything runs.
  std::string prediction = p.selection.prediction;
  if (p.selection.predict && prediction.empty()) prediction = ask_prediction(chosen_prediction(lesson, *p.selection.predict), ctx.gpu);
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count()) + " ms";
  };
  auto t0 = Clock::now();
  // Closing a run (its children, buffers, NCCL's communicators) is timed too (-v): "closed in N ms".
  std::optional<Run> held;
  held.emplace(p.options, ctx, p.selection);
  Run& run = *held;
  const auto close = [&] {
    const auto t = Clock::now();
    held.reset();
    log::debug(lesson.id + ": closed in " + ms_since(t));
  };
  log::debug(lesson.id + ": set up in " + ms_since(t0));
  report::Report r;
  r.command = lesson.id;
  r.title = words::say(lesson.id, "lesson.title");  // in the run's language
  report::Section setup("setup", "setup");
  if (lesson.setup) lesson.setup(run, setup);
  add_run_facts(setup, ctx, p.selection);
  r.sections.push_back(std::move(setup));
  if (p.selection.bench) {
    auto sections = lesson.bench->run(run);
    if (!sections.empty()) note_if_gpu_shared(ctx, sections.front());  // a sweep's timings
    for (auto& s : sections) r.sections.push_back(std::move(s));
    close();
    return r;
  }
  for (const auto& part : parts_of(lesson)) {
    if (!p.selection.has(part.id)) continue;
    try {
      t0 = Clock::now();
      r.sections.push_back(part.run(run));
      log::debug(lesson.id + ": part " + part.id + " in " + ms_since(t0));
      if (part.id == "cost") note_if_gpu_shared(ctx, r.sections.back());  // a timing part
    } catch (const WaivedError& e) {
      r.waived.push_back({part.id, e.what()});
    }
  }
  if (p.selection.predict && r.sections.size() > 1) {
    const Prediction pr = chosen_prediction(lesson, *p.selection.predict);
    // The score comes first, before the pages of tables it is about.
    r.sections.insert(r.sections.begin(), prediction_section(pr, prediction, pr.truth(r.sections.back()), ctx.gpu));
  }
  t0 = Clock::now();
  if (lesson.finish) lesson.finish(run, r);
  log::debug(lesson.id + ": finished in " + ms_since(t0));
  // The setup section alone means every part asked for was waived: the run exits 77.
  if (r.sections.size() == 1 && !r.waived.empty()) r.sections.clear();
  // A run of several parts opens with its one-screen summary; --brief prints that alone.
  if (!r.sections.empty() && !p.selection.predict) {
    const auto parts = summaries(lesson);
    const auto is_part = [&](const report::Section& x) {
      return std::any_of(parts.begin(), parts.end(), [&](const PartSummary& ps) { return ps.id == x.id; });
    };
    if (p.brief || std::count_if(r.sections.begin(), r.sections.end(), is_part) > 1) {
      report::Section summary = summary_section(r, lesson.id, parts, ctx, p.brief);
      if (p.brief) {
        // One screen: the waived parts are named in the overview, with the first one's reason.
        if (!r.waived.empty()) summary.note(r.waived.front().part + ": " + r.waived.front().reason);
        r.waived.clear();
        r.sections.clear();
      }
      r.sections.insert(r.sections.begin(), std::move(summary));
    }
  }
  close();
  return r;
}

}  // namespace detail

template <class Options, class Run>
std::vector<PartSummary> summaries(const Lesson<Options, Run>& lesson) {
  std::vector<PartSummary> out;
  // A part's title and summary are its catalog's (part.<id>.title, part.<id>.summary, which the
  // build requires) in the language known when the help is built (--lang is read before it:
  // core/cli/app.cpp).
  for (const auto& p : parts_of(lesson))
    out.push_back({p.id, words::say(lesson.id, "part." + p.id + ".title"),
                   words::say(lesson.id, "part." + p.id + ".summary"), p.needs_gpu, p.by_default});
  return out;
}

template <class Options, class Run>
cli::Attached attach(CLI::App& sub, const Lesson<Options, Run>& lesson) {
  auto parsed = std::make_shared<detail::Parsed<Options>>();
  std::vector<std::string> ids;
  std::map<std::string, std::string> former;  // a former part id -> its id now
  for (const auto& p : parts_of(lesson)) {
    ids.push_back(p.id);
    for (const auto& f : p.former_ids) former[f] = p.id;
  }
  sub.add_option("--part", parsed->parts, part_option_help(summaries(lesson)))
      ->delimiter(',')
      ->check(CLI::IsMember(ids))
      ->transform(CLI::Validator(
          [former](std::string& id) {
            if (const auto f = former.find(id); f != former.end()) id = f->second;
            return std::string();
          },
          "", "former part ids"));
  // The lesson's own options, from its manifest (which the parts' and the bench's "reads" name).
  OptionBinder binder(sub, lesson.id, course::built_in_manifest(lesson.id).options);
  if (lesson.bind_options) lesson.bind_options(binder, parsed->options);
  binder.done();
  if (!lesson.children.empty()) {
    sub.add_option("--child", parsed->child)->group("");  // hidden: core/parts/child.hpp
    sub.add_option("--child-out", parsed->child_out)->group("");
  }
  sub.add_flag("--brief", parsed->brief, words::core("summary.brief-help"));
  if (!lesson.predictions.empty()) {
    sub.add_flag("--predict", parsed->predict,
                 words::core("option.predict", {{"parts", prediction_parts(detail::worded_predictions(lesson))}}));
    sub.add_option("--prediction", parsed->prediction, words::core("option.prediction"));
  }
  sub.footer(parts_footer(summaries(lesson), lesson.bench.has_value(),
                          lesson.bench ? words::say(lesson.id, "bench.summary") : ""));

  const CLI::App* app = &sub;
  cli::Validator validate = [&lesson, parsed, app](const RunContext& ctx) {
    const bool bench = ctx.bench && lesson.bench.has_value();
    if (bench && !parsed->parts.empty())
      throw UsageError("--part " + parsed->parts.front() + " is not used by --bench, which runs " + lesson.id +
                       "'s own sweep; accepted: --part without --bench, or --bench without --part");
    if (parsed->brief && (bench || parsed->predict))
      throw UsageError(std::string(bench ? "--bench" : "--predict") +
                       " with --brief: --brief prints the one-screen summary of the parts alone; accepted: --brief "
                       "without --bench and --predict");
    parsed->selection = select(detail::rules(lesson), parsed->parts, bench);
    parsed->selection.child = !parsed->child.empty();
    parsed->selection.child_out = parsed->child_out;
    if (parsed->selection.child) return;  // a child runs what its parent asked for
    const PredictionChoice predict =
        choose_prediction(detail::worded_predictions(lesson), lesson.id, parsed->parts, parsed->selection.bench, parsed->predict,
                          parsed->prediction, isatty(STDIN_FILENO) != 0);
    if (predict.index) {
      parsed->selection.ids = {detail::worded_predictions(lesson)[*predict.index].part};
      parsed->selection.predict = predict.index;
      parsed->selection.prediction = predict.answer;
    }
    if (const auto e = applicability_error(detail::rules(lesson), detail::bench_rule(lesson), parsed->selection,
                                           detail::given_options(*app)))
      throw UsageError(*e);
    if (lesson.validate)
      if (const auto e = lesson.validate(parsed->options, parsed->selection, ctx)) throw UsageError(*e);
  };
  cli::Runner run = [&lesson, parsed](const RunContext& ctx) { return detail::run_lesson(lesson, *parsed, ctx); };
  return {run, validate};
}

// The row of main's command table for a lesson.
template <class Options, class Run>
cli::Command command(const Lesson<Options, Run>& lesson) {
  cli::Command c;
  c.name = lesson.id;
  c.kind = cli::CommandKind::lesson;
  c.parts = summaries(lesson);
  c.gpus = lesson.gpus;
  c.attach = [&lesson](CLI::App& sub) { return attach(sub, lesson); };
  return c;
}

// The same row with the lesson's place in the course (core/course/exercise.hpp): its tour stop,
// the sentence to remember and its exercises.
template <class Options, class Run>
cli::Command command(const Lesson<Options, Run>& lesson, const course::LessonCourse& course) {
  cli::Command c = command(lesson);
  c.course = &course;
  return c;
}

}  // namespace cudasync::parts
