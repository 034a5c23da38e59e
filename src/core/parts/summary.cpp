#include "core/parts/summary.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "core/course/exercise_texts.hpp"
#include "core/lesson_texts.hpp"
#include "core/words/words.hpp"

namespace cudasync::parts {

std::string remember_sentence(const std::string& lesson, const std::string& lang) {
  const auto text = find_lesson_text(lesson, lang);
  return text ? course::remember_text(*text, lang) : std::string();
}

report::Section summary_section(const report::Report& r, const std::string& lesson,
                                const std::vector<PartSummary>& parts, const RunContext& ctx, bool brief) {
  using words::core;
  report::Section s("overview", core("summary.title"));
  // The parts by what they gave, in the order a student reads them: failures first. One line per
  // outcome keeps the lesson of twenty parts on one screen.
  static const std::pair<const char*, const char*> kOutcomes[] = {{"failed", "summary.verdict-failed"},
                                                                  {"waived", "summary.verdict-waived"},
                                                                  {"needs-gpu", "summary.verdict-needs-gpu"},
                                                                  {"passed", "summary.verdict-passed"},
                                                                  {"shown", "summary.verdict-shown"}};
  std::map<std::string, std::string> by_outcome;
  std::int64_t passed = 0, total = 0;
  std::string first_failed;
  for (const PartSummary& p : parts) {
    const auto section = std::find_if(r.sections.begin(), r.sections.end(), [&](const report::Section& x) { return x.id == p.id; });
    const auto waived = std::find_if(r.waived.begin(), r.waived.end(), [&](const report::Waiver& w) { return w.part == p.id; });
    if (section == r.sections.end() && waived == r.waived.end()) continue;  // not run
    std::int64_t ok = 0, all = 0;
    if (section != r.sections.end())
      for (const auto& c : section->checks) {
        ++all;
        ok += c.passed ? 1 : 0;
        if (!c.passed && first_failed.empty()) first_failed = p.id;
      }
    passed += ok;
    total += all;
    std::string outcome = "passed";
    if (waived != r.waived.end()) outcome = "waived";
    else if (ok < all) outcome = "failed";
    else if (p.needs_gpu && !ctx.gpu) outcome = "needs-gpu";
    else if (all == 0) outcome = "shown";
    std::string& ids = by_outcome[outcome];
    ids += (ids.empty() ? "" : ", ") + p.id;
  }
  s.paragraph(core(brief ? "summary.ran-brief" : "summary.ran", {{"lesson", lesson}, {"backend", ctx.gpu ? core("summary.on-gpu") : core("summary.on-model")}}));
  s.fact("checks-passed", core("summary.checks-passed"), passed, report::Format::count,
         core("summary.of", {{"total", total}}));
  for (const auto& [outcome, key] : kOutcomes)
    if (const auto it = by_outcome.find(outcome); it != by_outcome.end())
      s.fact(std::string("parts-") + outcome, core(key), it->second);
  const std::string remember = remember_sentence(lesson, ctx.lang);
  if (!remember.empty()) s.fact("remember", core("summary.remember"), remember);
  std::string next = first_failed.empty() ? "cudasync explain " + lesson + "; cudasync exercise " + lesson
                                          : "cudasync " + lesson + " --part " + first_failed;
  s.fact("next", core("summary.next"), next);
  return s;
}

}  // namespace cudasync::parts
