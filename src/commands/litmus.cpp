#include "commands/litmus.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/stat.h>

#include "core/errors.hpp"
#include "core/version.hpp"
#include "core/course/student_kernel.hpp"
#include "core/litmus/litmus_kernel.hpp"
#include "core/litmus/litmus_library.hpp"
#include "core/litmus/litmus_parse.hpp"
#include "core/litmus/litmus_sass.hpp"
#include "core/litmus/ptx_axioms.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

using I = std::int64_t;
namespace lt = cudasync::litmus;

constexpr std::size_t kMaxFile = 64 * 1024;

std::string library_names() {
  std::string s;
  for (const auto& t : lt::library()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

report::Report run_list(const RunContext& ctx) {
  report::Report r;
  r.command = "litmus";
  r.title = words::core("litmus.list-title");
  report::Section s("library", words::core("litmus.library"));
  s.paragraph(words::core("litmus.list-intro"));
  report::Table t("tests", words::core("litmus.library"));
  t.column("name", words::core("litmus.name")).column("outcome", words::core("litmus.outcome"))
      .column("about", words::core("litmus.about"));
  for (const auto& x : lt::library())
    t.row({{"name", x.name}, {"outcome", x.outcome}, {"about", ctx.lang == "zh" ? x.about_zh : x.about_en}});
  t.legend.push_back(words::core("litmus.list-legend"));
  s.add(std::move(t));
  r.sections.push_back(std::move(s));
  return r;
}

lt::LitmusTest read_test(const std::string& what, const lt::LibraryTest*& entry) {
  entry = lt::find_library_test(what);
  try {
    if (entry) return lt::parse_litmus(std::string(entry->text), "litmus/" + entry->name + ".litmus");
    struct stat st {};
    if (stat(what.c_str(), &st) != 0)
      throw UsageError("litmus " + what + ": no such test or file; accepted: a library test (" + library_names() +
                       ", see cudasync litmus list) or the path of a .litmus file");
    if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxFile)
      throw UsageError("litmus " + what + ": not a regular file of at most 64 KiB; accepted: a .litmus file");
    std::ifstream f(what, std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    return lt::parse_litmus(text.str(), what);
  } catch (const lt::LitmusSyntaxError& e) {
    throw UsageError(e.what());
  }
}

std::string event_name(const lt::Verdict& v, int e) { return v.events[static_cast<std::size_t>(e)].id; }

// The hardware's answer: the test as a kernel, run `runs` launches of many instances each.
report::Section gpu_section(const RunContext& ctx, const lt::LitmusTest& test, const lt::Verdict& v, int runs) {
  report::Section g("gpu", words::core("litmus.gpu"));
  if (const std::string why = lt::gpu_unsupported(test); !why.empty()) {
    g.note(words::core("litmus.gpu-skipped", {{"why", why}}));
    return g;
  }
  if (const std::string why = course::nvrtc_missing(); !why.empty()) {
    g.note(words::core("litmus.gpu-skipped", {{"why", why}}));
    return g;
  }
  const lt::LitmusGpuPlan plan = lt::plan_gpu_run(test, 64);
  const std::string arch = "sm_" + std::to_string(ctx.compute_capability());
  const course::NvrtcOutput compiled = course::nvrtc_compile(lt::litmus_kernel_source(test, plan), test.name + ".cu", arch);
  if (!compiled.ok) throw std::logic_error("litmus: the generated kernel does not compile: " + compiled.log);
  const lt::Histogram h = lt::gpu_run_litmus(compiled.cubin, test, plan, runs, ctx.seed, true, ctx.device->index);
  g.fact("instances", words::core("litmus.instances"), static_cast<I>(h.instances), report::Format::count,
         words::core("litmus.instances-how", {{"runs", runs}, {"each", plan.instances()}}));
  g.fact("seen", words::core("litmus.seen"), static_cast<I>(h.target), report::Format::count);
  if (h.late_launches > 0) g.fact("late-launches", words::core("litmus.late"), static_cast<I>(h.late_launches), report::Format::count);
  report::Table t("outcomes", words::core("litmus.outcomes"));
  t.column("outcome", words::core("litmus.outcome-values")).column("count", words::core("litmus.count"), report::Format::count);
  std::vector<std::pair<long long, std::string>> rows;
  for (const auto& [k, n] : h.outcomes) rows.push_back({n, k});
  std::sort(rows.rbegin(), rows.rend());
  for (std::size_t i = 0; i < rows.size() && i < 12; ++i) t.row({{"outcome", rows[i].second}, {"count", static_cast<I>(rows[i].first)}});
  g.add(std::move(t));
  if (!v.reachable && h.target > 0)
    g.note(words::core("litmus.forbidden-seen", {{"count", h.target}, {"command", "cudasync litmus " + test.file + " --seed " + std::to_string(ctx.seed)}}));
  else if (v.reachable && h.target == 0)
    g.note(words::core("litmus.allowed-not-seen"));
  return g;
}

// What the compiler made of it: each instruction's SASS, where NVRTC and nvdisasm are at hand (no
// GPU needed: the kernel is compiled for the run's GPU, or for the course's H100 without one).
report::Section sass_section(const RunContext& ctx, const lt::LitmusTest& test) {
  report::Section x("sass", words::core("litmus.sass"));
  std::string looked;
  const auto nvdisasm = lt::find_nvdisasm(looked);
  std::string why;
  if (!kCudaBuiltIn) why = words::core("litmus.sass-no-cuda");
  else if (const std::string missing = course::nvrtc_missing(); !missing.empty()) why = missing;
  else if (!nvdisasm) why = words::core("litmus.sass-no-nvdisasm", {{"looked", looked}});
  else if (const std::string no_gpu = lt::gpu_unsupported(test); !no_gpu.empty()) why = no_gpu;
  if (!why.empty()) {
    x.note(words::core("litmus.sass-skipped", {{"why", why}}));
    return x;
  }
  const std::string arch = ctx.gpu && ctx.device ? "sm_" + std::to_string(ctx.compute_capability()) : course::kCompileOnlyArch;
  const lt::LitmusGpuPlan plan = lt::plan_gpu_run(test, 64);
  const course::NvrtcOutput compiled = course::nvrtc_compile(lt::litmus_kernel_source(test, plan), test.name + ".cu", arch);
  if (!compiled.ok) throw std::logic_error("litmus: the generated kernel does not compile: " + compiled.log);
  const std::string text = lt::disassemble(*nvdisasm, compiled.cubin, why);
  if (text.empty()) {
    x.note(words::core("litmus.sass-skipped", {{"why", why}}));
    return x;
  }
  const auto by_line = lt::sass_by_line(text);
  x.fact("arch", words::core("litmus.sass-arch"), arch);
  report::Table t("instructions", words::core("litmus.sass-table"));
  t.column("thread", words::core("litmus.thread")).column("line", words::core("litmus.line"), report::Format::count)
      .column("instruction", words::core("litmus.instruction")).column("sass", "SASS");
  for (const auto& th : test.threads)
    for (const auto& in : th.code) {
      if (in.op == lt::Op::label) continue;
      std::string sass;
      if (const auto it = by_line.find({th.name, in.line}); it != by_line.end())
        for (const std::string& i : it->second) {
          // The opcode, after a predicate guard if there is one ("@!P1 STG.E ..." -> "@!P1 STG.E").
          std::istringstream words(i);
          std::string first, op;
          words >> first;
          if (!first.empty() && first[0] == '@') words >> op, first += " " + op;
          sass += (sass.empty() ? "" : "; ") + first;
        }
      t.row({{"thread", th.name}, {"line", static_cast<I>(in.line)}, {"instruction", in.text},
             {"sass", sass.empty() ? std::string("-") : sass}});
    }
  t.legend.push_back(words::core("litmus.sass-legend"));
  x.add(std::move(t));
  return x;
}

report::Report run_test(const RunContext& ctx, const std::string& what, bool show, int runs, bool sass) {
  const lt::LibraryTest* entry = nullptr;
  const lt::LitmusTest test = read_test(what, entry);
  lt::Verdict v;
  try {
    v = lt::judge(test);
  } catch (const lt::ModelLimitError& e) {
    throw WaivedError("litmus " + what + ": beyond the model: " + e.what());
  }
  report::Report r;
  r.command = "litmus";
  r.title = words::core("litmus.title", {{"name", test.name}});

  report::Section s("test", words::core("litmus.test"));
  s.fact("name", words::core("litmus.name"), test.name);
  s.fact("file", words::core("litmus.file"), test.file);
  // A library test's description in the run's language; a file of the student's as written.
  if (!test.doc.empty()) s.paragraph(entry && ctx.lang == "zh" ? entry->doc_zh : test.doc);
  if (entry) s.paragraph(ctx.lang == "zh" ? entry->about_zh : entry->about_en);
  report::Table threads("threads", words::core("litmus.threads"));
  threads.column("thread", words::core("litmus.thread")).column("where", words::core("litmus.where"))
      .column("line", words::core("litmus.line"), report::Format::count)
      .column("instruction", words::core("litmus.instruction"));
  for (const auto& th : test.threads)
    for (const auto& in : th.code)
      threads.row({{"thread", th.name}, {"where", lt::placement_text(th.where)}, {"line", static_cast<I>(in.line)},
                   {"instruction", in.text}});
  s.add(std::move(threads));
  s.fact("condition", words::core("litmus.condition"),
         std::string(lt::to_string(test.quantifier)) + " " + test.condition_text);
  if (show) s.paragraph(std::string(entry ? entry->text : std::string_view{}));
  r.sections.push_back(std::move(s));

  report::Section m("model", words::core("litmus.model"));
  const std::string outcome = v.reachable ? "allowed" : "forbidden";
  m.fact("outcome", words::core("litmus.outcome"), outcome, report::Format::plain,
         words::core(v.reachable ? "litmus.allowed-means" : "litmus.forbidden-means"));
  m.fact("condition-holds", words::core("litmus.condition-holds"), v.holds ? std::string("yes") : std::string("no"));
  m.fact("candidates", words::core("litmus.candidates"), static_cast<I>(v.candidates), report::Format::count);
  m.fact("consistent", words::core("litmus.consistent"), static_cast<I>(v.consistent), report::Format::count);
  if (!v.reachable) {
    m.fact("axiom", words::core("litmus.axiom"), v.axiom.empty() ? std::string("-") : v.axiom);
    if (!v.rejected_by.empty()) {
      report::Table ax("axioms", words::core("litmus.axioms-title"));
      ax.column("axiom", words::core("litmus.axiom")).column("rejected", words::core("litmus.rejected"), report::Format::count)
          .column("of", words::core("litmus.of"), report::Format::count);
      for (const auto& [a, n] : v.rejected_by)
        ax.row({{"axiom", a}, {"rejected", static_cast<I>(n)}, {"of", static_cast<I>(a == "No-Thin-Air" ? n : v.target_candidates)}});
      m.add(std::move(ax));
    }
    if (v.target_candidates == 0 && v.thin_air == 0) m.note(words::core("litmus.never-written"));
  }
  if (!v.events.empty()) {
    report::Table ev("events", words::core(v.reachable ? "litmus.witness-events" : "litmus.example-events"));
    ev.column("event", words::core("litmus.event")).column("thread", words::core("litmus.thread"))
        .column("instruction", words::core("litmus.instruction"));
    for (const auto& e : v.events)
      ev.row({{"event", e.id}, {"thread", test.threads[static_cast<std::size_t>(e.thread)].name}, {"instruction", e.text}});
    m.add(std::move(ev));
    report::Table ex("execution", words::core("litmus.execution"));
    ex.column("relation", words::core("litmus.relation")).column("edge", words::core("litmus.edge"));
    for (const auto& [read, write] : v.rf)
      ex.row({{"relation", std::string("rf")},
              {"edge", write.empty() ? words::core("litmus.reads-initial", {{"read", read}})
                                     : words::core("litmus.reads", {{"read", read}, {"write", write}})}});
    for (const auto& [a, b] : v.co)
      ex.row({{"relation", std::string("co")}, {"edge", words::core("litmus.before", {{"first", a}, {"then", b}})}});
    for (const auto& x : v.final_state) ex.row({{"relation", std::string("final")}, {"edge", x}});
    m.add(std::move(ex));
  }
  if (!v.cycle.empty()) {
    report::Table cy("cycle", words::core("litmus.cycle-title", {{"axiom", v.example_axiom}}));
    cy.column("from", words::core("litmus.from")).column("relation", words::core("litmus.relation"))
        .column("to", words::core("litmus.to"));
    for (const auto& st : v.cycle)
      cy.row({{"from", event_name(v, st.from)}, {"relation", st.rel}, {"to", event_name(v, st.to)}});
    cy.legend.push_back(words::core("litmus.relations-legend"));
    m.add(std::move(cy));
  }
  if (entry) {
    m.fact("library-outcome", words::core("litmus.library-outcome"), entry->outcome);
    if (entry->dat3m)
      m.fact("dat3m", words::core("litmus.dat3m"), entry->dat3m->file, report::Format::plain,
             words::core("litmus.dat3m-says", {{"says", ctx.lang == "zh" ? entry->dat3m->says_zh : entry->dat3m->says},
                                               {"expected", entry->dat3m->expected}}));
  }
  m.note(words::core("litmus.model-source"));
  r.sections.push_back(std::move(m));
  if (ctx.gpu && ctx.device) r.sections.push_back(gpu_section(ctx, test, v, runs));
  if (sass) r.sections.push_back(sass_section(ctx, test));
  return r;
}

}  // namespace

cli::Runner attach_litmus(CLI::App& sub) {
  auto args = std::make_shared<std::vector<std::string>>();
  auto runs = std::make_shared<int>(200);
  auto sass = std::make_shared<bool>(false);
  sub.add_option("test", *args,
                 words::core("help.litmus.test"))
      ->required();
  sub.add_option("--runs", *runs, words::core("help.litmus.runs"))
      ->check(CLI::Range(1, 100000));
  sub.add_flag("--sass", *sass, words::core("help.litmus.sass"));
  return [args, runs, sass](const RunContext& ctx) {
    const auto& a = *args;
    if (a[0] == "list") {
      if (a.size() > 1) throw UsageError("litmus list takes nothing after it; accepted: cudasync litmus list");
      return run_list(ctx);
    }
    if (a[0] == "show") {
      if (a.size() != 2 || !lt::find_library_test(a[1]))
        throw UsageError("litmus show " + (a.size() > 1 ? a[1] : std::string()) + ": accepted: one library test (" +
                         library_names() + ")");
      return run_test(ctx, a[1], true, *runs, *sass);
    }
    if (a.size() > 1) throw UsageError("litmus " + a[0] + " " + a[1] + ": one test at a time; accepted: cudasync litmus NAME|FILE");
    return run_test(ctx, a[0], false, *runs, *sass);
  };
}

}  // namespace cudasync::commands
