#include "commands/class_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "core/course/course.hpp"
#include "core/course/progress_export.hpp"
#include "core/errors.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

namespace fs = std::filesystem;
using I = std::int64_t;
using report::Format;

constexpr std::size_t kMaxFiles = 2000;
constexpr std::uintmax_t kMaxFileBytes = 4u << 20;
constexpr int kStuckAttempts = 3;  // tried this often and not solved: stuck there

std::vector<std::string> export_files(const std::vector<std::string>& given) {
  std::vector<std::string> files;
  for (const std::string& g : given) {
    std::error_code ec;
    if (fs::is_directory(g, ec)) {
      std::vector<std::string> in;
      for (const auto& e : fs::directory_iterator(g, ec))
        if (e.is_regular_file() && e.path().extension() == ".json") in.push_back(e.path().string());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else if (fs::is_regular_file(g, ec)) {
      files.push_back(g);
    } else {
      throw UsageError("class report " + g + ": no such file or folder; accepted: files cudasync progress --export "
                       "wrote, or a folder of them");
    }
    if (files.size() > kMaxFiles)
      throw UsageError("class report: more than " + std::to_string(kMaxFiles) + " files; accepted: one class at a time");
  }
  if (files.empty()) throw UsageError("class report: no .json file found; accepted: files cudasync progress --export wrote");
  return files;
}

report::Report run_report(const std::vector<std::string>& given) {
  std::vector<course::StudentExport> students;
  for (const std::string& f : export_files(given)) {
    std::error_code ec;
    if (fs::file_size(f, ec) > kMaxFileBytes)
      throw UsageError("class report " + f + ": larger than 4 MiB; accepted: a file cudasync progress --export wrote");
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    students.push_back(course::read_export(text.str(), f));
  }
  std::sort(students.begin(), students.end(), [](const auto& a, const auto& b) { return a.student < b.student; });

  report::Report r;
  r.command = "class";
  r.title = words::core("class.title");
  report::Section s("class", words::core("class.heading"));
  s.fact("students", words::core("class.students"), static_cast<I>(students.size()), Format::count);

  // Each student: totals, and the first exercise they are stuck at.
  report::Table st("students", words::core("class.students-title"));
  st.column("student", words::core("class.student")).column("solved", words::core("class.solved"), Format::count)
      .column("attempts", words::core("class.attempts"), Format::count).column("hints", words::core("class.hints"), Format::count)
      .column("shown", words::core("class.shown"), Format::count)
      .column("on-gpu", words::core("class.solved-on-gpu"), Format::count)
      .column("stuck", words::core("class.stuck-at"));
  struct Tally {
    std::string lesson, id;
    int number = 0;
    I solved = 0, attempts = 0, hints = 0, shown = 0, stuck = 0, tried = 0;
  };
  std::map<std::pair<std::string, int>, Tally> per;
  std::vector<std::pair<std::string, int>> order;
  for (const auto& x : students) {
    I solved = 0, attempts = 0, hints = 0, shown = 0, on_gpu = 0;
    std::string stuck = "-";
    for (const auto& e : x.exercises) {
      const auto key = std::make_pair(e.lesson, e.number);
      if (!per.count(key)) order.push_back(key);
      Tally& t = per[key];
      t.lesson = e.lesson;
      t.id = e.id;
      t.number = e.number;
      t.solved += e.solved ? 1 : 0;
      t.attempts += e.attempts;
      t.hints += e.hints;
      t.shown += e.answer_shown ? 1 : 0;
      t.tried += e.attempts > 0 ? 1 : 0;
      const bool is_stuck = !e.solved && e.attempts >= kStuckAttempts;
      t.stuck += is_stuck ? 1 : 0;
      if (is_stuck && stuck == "-") stuck = e.lesson + " " + std::to_string(e.number);
      solved += e.solved ? 1 : 0;
      attempts += e.attempts;
      hints += e.hints;
      shown += e.answer_shown ? 1 : 0;
      on_gpu += e.solved && e.solved_on == "gpu" ? 1 : 0;
    }
    st.row({{"student", x.student}, {"solved", solved}, {"attempts", attempts}, {"hints", hints}, {"shown", shown},
            {"on-gpu", on_gpu}, {"stuck", stuck}});
  }
  st.legend.push_back(words::core("class.students-legend", {{"n", kStuckAttempts}}));
  // The HTML page draws each student's solves and attempts as bars (core/report/html_pictures).
  st.picture = report::bars_picture({"student"}, {"solved", "attempts"});
  s.add(std::move(st));

  // Each exercise someone tried, hardest first: the fewest solves per student who tried it.
  std::vector<const Tally*> tried;
  for (const auto& k : order)
    if (per[k].tried > 0 || per[k].hints > 0 || per[k].shown > 0) tried.push_back(&per[k]);
  std::stable_sort(tried.begin(), tried.end(), [](const Tally* a, const Tally* b) {
    return a->solved * b->tried < b->solved * a->tried;  // solved/tried, ascending, without division
  });
  report::Table ex("exercises", words::core("class.exercises-title"));
  ex.column("lesson", words::core("class.lesson")).column("number", "#", Format::count)
      .column("tried", words::core("class.tried"), Format::count).column("solved", words::core("class.solved"), Format::count)
      .column("stuck", words::core("class.stuck"), Format::count).column("hints", words::core("class.hints"), Format::count)
      .column("shown", words::core("class.shown"), Format::count);
  for (const Tally* t : tried)
    ex.row({{"lesson", t->lesson}, {"number", static_cast<I>(t->number)}, {"tried", t->tried}, {"solved", t->solved},
            {"stuck", t->stuck}, {"hints", t->hints}, {"shown", t->shown}});
  ex.legend.push_back(words::core("class.exercises-legend"));
  // and each exercise's students who tried, solved and are stuck, hardest first.
  ex.picture = report::bars_picture({"lesson", "number"}, {"tried", "solved", "stuck"});
  s.add(std::move(ex));

  report::Table src("files", words::core("class.files-title"));
  src.column("student", words::core("class.student")).column("host", words::core("class.host"))
      .column("gpu", "GPU").column("version", "cudasync").column("exported", words::core("class.exported"));
  for (const auto& x : students)
    src.row({{"student", x.student}, {"host", x.host}, {"gpu", x.gpu}, {"version", x.version}, {"exported", x.exported}});
  s.add(std::move(src));
  r.sections.push_back(std::move(s));
  return r;
}

}  // namespace

cli::Runner attach_class(CLI::App& sub, const std::vector<cli::Command>& /*table*/) {
  auto args = std::make_shared<std::vector<std::string>>();
  sub.add_option("what", *args, words::core("help.class.what"))->required();
  return [args](const RunContext&) {
    if ((*args)[0] != "report" || args->size() < 2)
      throw UsageError("class " + (*args)[0] + ": accepted: cudasync class report FILE... (or a folder of them)");
    return run_report(std::vector<std::string>(args->begin() + 1, args->end()));
  };
}

}  // namespace cudasync::commands
