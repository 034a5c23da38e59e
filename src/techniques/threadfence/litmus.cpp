// threadfence's litmus parts: litmus (the test x fence matrix, or the rows --test and --fence
// choose), scope (mp with and without fences, producer and consumer in one block and in two),
// volatile (volatile orders nothing; a wait on a plain load may never see the flag) and
// host-observer (mp with the consumer on the CPU). Each row says what the PTX memory model allows
// (memory_model.cpp) and, on a GPU, what many concurrent instances did.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::grouped;
using report::Value;
using I = std::int64_t;

// ---- names -------------------------------------------------------------------------------------------

namespace {

// Per test, in Test's order: the catalog keys of its title and of what r0 and r1 are, and its weak
// outcome (mp 10, sb 00, lb 11, corr 10).
struct TestWords {
  const char* title;
  const char* registers;
  int weak;
};
const TestWords kTestWords[kTests] = {{"test.mp", "test.mp-registers", outcome_index(1, 0)},
                                      {"test.sb", "test.sb-registers", outcome_index(0, 0)},
                                      {"test.lb", "test.lb-registers", outcome_index(1, 1)},
                                      {"test.corr", "test.corr-registers", outcome_index(1, 0)}};

template <class E>
std::optional<E> parse_name(const std::vector<std::string>& names, const std::string& s) {
  const auto i = std::find(names.begin(), names.end(), s);
  if (i == names.end()) return std::nullopt;
  return static_cast<E>(i - names.begin());
}

}  // namespace

const char* to_string(Test t) { return kTestNames[static_cast<std::size_t>(t)].c_str(); }
const char* to_string(Fence f) { return kFenceNames[static_cast<std::size_t>(f)].c_str(); }
const char* to_string(Access a) { return a == Access::plain ? "plain" : "volatile"; }
const char* to_string(Placement p) { return p == Placement::same_block ? "same-block" : "different-blocks"; }
std::optional<Test> parse_test(const std::string& s) { return parse_name<Test>(kTestNames, s); }
std::optional<Fence> parse_fence(const std::string& s) { return parse_name<Fence>(kFenceNames, s); }
std::string test_title(Test t) { return say(kTestWords[static_cast<std::size_t>(t)].title); }
std::string registers_meaning(Test t) { return say(kTestWords[static_cast<std::size_t>(t)].registers); }
int weak_outcome(Test t) { return kTestWords[static_cast<std::size_t>(t)].weak; }

std::string fences_text(const LitmusSpec& s) {
  if (s.fence[0] == s.fence[1]) return to_string(s.fence[0]);
  return std::string(to_string(s.fence[0])) + "," + to_string(s.fence[1]);
}

std::string outcome_text(int index) {
  return "r0=" + std::to_string(index / 2) + " r1=" + std::to_string(index % 2);
}

bool meaningful(const LitmusSpec& s) {
  if (s.test == Test::corr && (s.fence[0] == Fence::block || s.fence[0] == Fence::device || s.fence[0] == Fence::system))
    return false;
  if (s.weak_wait && (s.test != Test::mp || s.fence[1] == Fence::rel_acq)) return false;
  return true;
}

// ---- rows and their verdicts --------------------------------------------------------------------------

LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns) {
  LitmusRow r;
  r.spec = spec;
  r.iterations = iterations;
  r.budget_ns = budget_ns;
  r.model = ptx_model(spec);
  return r;
}

std::vector<int> forbidden_seen(const LitmusRow& r) {
  std::vector<int> out;
  if (!r.gpu) return out;
  for (int o = 0; o < kOutcomes; ++o)
    if (r.gpu->outcome[o] > 0 && !r.model.allowed[static_cast<std::size_t>(o)]) out.push_back(o);
  return out;
}

std::string litmus_verdict(const LitmusRow& r) {
  const bool weak_allowed = r.model.weak_allowed(r.spec.test);
  if (!r.gpu) return weak_allowed ? say("verdict.allowed") : say("verdict.forbidden", {{"reason", r.model.forbidden_by}});
  const LitmusCounts& c = *r.gpu;
  if (r.timeouts_expected) {
    if (c.timed_out == 0) return say("verdict.every-wait-saw-flag");
    return say("verdict.waits-gave-up", {{"timed-out", grouped(c.timed_out)}, {"instances", grouped(c.instances)}});
  }
  if (!forbidden_seen(r).empty()) return say("verdict.forbidden-seen");
  const bool seen = c.outcome[weak_outcome(r.spec.test)] > 0;
  if (weak_allowed) return say(seen ? "verdict.allowed-seen" : "verdict.allowed-not-seen");
  return say("verdict.forbidden-not-seen");
}

std::optional<double> weak_share(const LitmusCounts& c, Test test) {
  const std::uint64_t done = c.completed();
  if (done == 0) return std::nullopt;
  return static_cast<double>(c.outcome[weak_outcome(test)]) / static_cast<double>(done);
}

LitmusSummary summarize(const std::vector<LitmusRow>& rows) {
  LitmusSummary sum;
  for (const auto& r : rows) {
    ++sum.rows;
    if (!r.gpu) continue;
    const LitmusCounts& c = *r.gpu;
    sum.completed += c.completed();
    if (!r.timeouts_expected) sum.bounded_waits += c.instances;
    if (const auto seen = forbidden_seen(r); !seen.empty()) {
      std::string what, why;
      for (int o : seen) {
        what += (what.empty() ? "" : ", ") +
                say("finding.outcome-times", {{"outcome", outcome_text(o)}, {"times", grouped(c.outcome[o])}});
        const std::string& reason = r.model.reasons[static_cast<std::size_t>(o)];
        if (!reason.empty() && why.find(reason) == std::string::npos) why += (why.empty() ? "" : "; ") + reason;
      }
      sum.findings.push_back(say("finding.forbidden-seen", {{"test", to_string(r.spec.test)},
                                                            {"fences", fences_text(r.spec)},
                                                            {"access", to_string(r.spec.access)},
                                                            {"placement", to_string(r.spec.placement)},
                                                            {"what", what},
                                                            {"completed", grouped(c.completed())},
                                                            {"why", why.empty() ? say("finding.no-execution") : why}}));
    }
    if (c.timed_out > 0 && !r.timeouts_expected)
      sum.timeouts.push_back(say("finding.timeouts", {{"test", to_string(r.spec.test)},
                                                      {"fences", fences_text(r.spec)},
                                                      {"timed-out", grouped(c.timed_out)},
                                                      {"instances", grouped(c.instances)}}));
  }
  return sum;
}

namespace {

constexpr unsigned long long kWaitBudgetNs = 20000000ull;      // 20 ms: every wait of a litmus instance
constexpr unsigned long long kPlainWaitBudgetNs = 1000000ull;  // 1 ms: the wait on a plain load

std::string generic_code(Test t, int side) {
  switch (t) {
    case Test::mp: return side == 0 ? "x = 1; F0; y = 1" : say("table.mp-side-1");
    case Test::sb: return side == 0 ? "x = 1; F0; r0 = y" : "y = 1; F1; r1 = x";
    case Test::lb: return side == 0 ? "r0 = x; F0; y = 1" : "r1 = y; F1; x = 1";
    case Test::corr: return side == 0 ? "x = 1" : "r0 = x; F1; r1 = x";
  }
  return "";
}

std::string outcome_key(int o) { return std::to_string(o / 2) + std::to_string(o % 2); }

void add_legend(report::Table& t, const std::vector<LitmusRow>& rows, bool gpu_run) {
  std::vector<Test> tests;
  for (const auto& r : rows)
    if (std::find(tests.begin(), tests.end(), r.spec.test) == tests.end()) tests.push_back(r.spec.test);
  for (Test test : tests) {
    t.legend.push_back(say("table.legend-test",
                           {{"test", to_string(test)}, {"title", test_title(test)}, {"weak", outcome_key(weak_outcome(test))}}));
    t.legend.push_back("  " + say("table.legend-side", {{"side", 0}, {"code", generic_code(test, 0)}}));
    t.legend.push_back("  " + say("table.legend-side", {{"side", 1}, {"code", generic_code(test, 1)}}));
    t.legend.push_back("  " + registers_meaning(test));
  }
  for (const char* line : {"table.legend-fences-1", "table.legend-fences-2", "table.legend-fences-3",
                           "table.legend-fences-4", "table.legend-fences-5", "table.legend-fences-6"})
    t.legend.push_back(say(line));
  if (gpu_run) {
    t.legend.push_back(say("table.legend-counts"));
    t.legend.push_back(say("table.legend-weak"));
  }
}

// A wait budget in ms, whole when it is: 20000000 ns -> 20 (Format::ms).
report::Value budget_ms(unsigned long long ns) {
  if (ns % 1000000ull == 0) return static_cast<I>(ns / 1000000ull);
  return static_cast<double>(ns) / 1e6;
}

// Runs every row on the GPU (gpu_litmus) when the run has one; leaves them as the model made them
// otherwise.
void run_rows(std::vector<LitmusRow>& rows, bool gpu) {
  if (!gpu) return;
  for (auto& r : rows) r.gpu = gpu_litmus(r.spec, r.iterations, r.budget_ns);
}

struct TableOptions {
  bool label = false;      // a "case" column first
  bool access = false;     // an access column
  bool placement = false;  // a "sides in" column
};
// The table "outcomes": per row the test, its fences, (on a GPU) the instances and their outcomes,
// what the model allows and the verdict; a row that saw a forbidden outcome is marked.
report::Table litmus_table(const std::string& title, const std::vector<LitmusRow>& rows, bool gpu_run,
                           const TableOptions& opt) {
  report::Table t("outcomes", title);
  if (opt.label) t.column("case", say("table.case"));  // the case names its test
  else t.column("test", say("table.test"));
  t.column("fence", say("table.fence"));
  if (opt.access) t.column("access", say("table.access"));
  if (opt.placement) t.column("sides-in", say("table.sides-in"));
  if (gpu_run) {  // counts only a GPU gives: the model's table leaves them out
    t.column("instances", say("table.instances"), Format::count);
    for (int o = 0; o < kOutcomes; ++o) t.column("r" + outcome_key(o), outcome_key(o), Format::count);
    t.column("weak-share", say("table.weak"), Format::percent);
  }
  t.column("allowed", say("table.allowed")).column("impossible", say("table.impossible")).column("verdict", say("table.verdict"));
  if (opt.placement) t.column("sides-in-id", say("table.sides-in-id"));  // the placement as an id, for the exercises
  for (const auto& r : rows) {
    std::vector<std::pair<std::string, Value>> cells;
    if (opt.label) cells.emplace_back("case", r.label);
    else cells.emplace_back("test", std::string(to_string(r.spec.test)));
    cells.emplace_back("fence", fences_text(r.spec));
    if (opt.access) {
      const bool all_atomic =
          r.spec.test != Test::mp && r.spec.fence[0] == Fence::rel_acq && r.spec.fence[1] == Fence::rel_acq;
      cells.emplace_back("access", std::string(all_atomic ? "atomic_ref" : to_string(r.spec.access)));
    }
    if (opt.placement)
      cells.emplace_back("sides-in", say(r.spec.placement == Placement::same_block ? "table.one-block" : "table.two-blocks"));
    if (r.gpu) {
      cells.emplace_back("instances", static_cast<I>(r.gpu->instances));
      for (int o = 0; o < kOutcomes; ++o) cells.emplace_back("r" + outcome_key(o), static_cast<I>(r.gpu->outcome[o]));
      const auto share = weak_share(*r.gpu, r.spec.test);
      cells.emplace_back("weak-share", share ? Value{*share} : Value{report::Undefined{}});
    }
    cells.emplace_back("allowed", allowed_text(r.model));
    cells.emplace_back("impossible", impossible_text(r.model));
    cells.emplace_back("verdict", litmus_verdict(r));
    if (opt.placement)
      cells.emplace_back("sides-in-id", std::string(r.spec.placement == Placement::same_block ? "one-block" : "two-blocks"));
    t.row(cells, forbidden_seen(r).empty() ? report::RowMark::none : report::RowMark::mismatch);
  }
  // A row is named by every column that tells it from the others: the test, the fences, and where
  // the table varies them, the access and the placement ("one block" / "two blocks").
  std::vector<std::string> labels{opt.label ? "case" : "test", "fence"}, names, counts;
  if (opt.access) labels.push_back("access");
  if (opt.placement) labels.push_back("sides-in");
  for (int o = 0; o < kOutcomes; ++o) names.push_back(outcome_key(o));
  if (gpu_run)
    for (int o = 0; o < kOutcomes; ++o) counts.push_back("r" + outcome_key(o));
  t.picture = report::outcomes_picture(labels, names, "allowed", counts, "impossible");  // --html draws it
  add_legend(t, rows, gpu_run);
  return t;
}

// The grid of the first row the GPU ran (blocks, threads, pairs at once, instances, wait budget).
void add_grid_facts(report::Section& s, const std::vector<LitmusRow>& rows) {
  const auto first = std::find_if(rows.begin(), rows.end(), [](const LitmusRow& r) { return r.gpu && !r.timeouts_expected; });
  if (first == rows.end()) return;
  const LitmusCounts& c = *first->gpu;
  s.fact("blocks", say("grid.blocks"), I{c.blocks}, Format::count, say("grid.blocks-note"));
  s.fact("threads", say("grid.threads"), I{c.threads}, Format::count);
  s.fact("pairs-per-round", say("grid.pairs-per-round"), static_cast<I>(c.pairs_per_round), Format::count);
  s.fact("instances-per-row", say("grid.instances-per-row"), static_cast<I>(c.instances), Format::count,
         say("grid.instances-per-row-note",
             {{"rounds", c.rounds}, {"iterations", grouped(static_cast<std::uint64_t>(first->iterations))}}));
  s.fact("wait-budget", say("grid.wait-budget"), budget_ms(first->budget_ns), Format::ms, say("grid.wait-budget-note"));
}

// "pairs with both sides on one SM": a count fact, of how many pairs were checked.
void add_same_sm_fact(report::Section& s, const std::string& id, const std::string& title, const LitmusCounts& c) {
  if (c.pairs_checked == 0) return;
  s.fact(id, title, static_cast<I>(c.pairs_same_sm), Format::count,
         say("grid.same-sm-note", {{"pairs", grouped(c.pairs_checked)}}));
}

// On a GPU: the checks "no-forbidden-outcome" and "no-wait-timed-out", and a FINDING note per
// forbidden outcome seen. Without one: `no_gpu_note`.
void add_litmus_checks(report::Section& s, const std::vector<LitmusRow>& rows, bool gpu_run,
                       const std::string& no_gpu_note) {
  if (!gpu_run) {
    s.note(no_gpu_note);
    return;
  }
  const LitmusSummary sum = summarize(rows);
  s.agreement("no-forbidden-outcome", say("check.no-forbidden"), sum.findings.empty(),
              sum.findings.empty()
                  ? say("check.no-forbidden-detail", {{"rows", sum.rows}, {"completed", grouped(sum.completed)}})
                  : say("check.forbidden-detail", {{"count", sum.findings.size()}}));
  s.check("no-wait-timed-out", say("check.no-timeout"), sum.timeouts.empty(),
          sum.timeouts.empty() ? say("check.no-timeout-detail", {{"instances", grouped(sum.bounded_waits)}})
                               : say("check.timed-out", {{"list", report::join(sum.timeouts, "; ")}}));
  for (const auto& f : sum.findings) s.note(say("check.finding", {{"finding", f}}));
}

// The tests --test names, each once (all four without it).
std::vector<Test> tests_of(const Options& o) {
  if (o.tests.empty()) return {Test::mp, Test::sb, Test::lb, Test::corr};
  std::vector<Test> t;
  for (const auto& name : o.tests)
    if (const auto x = parse_test(name); x && std::find(t.begin(), t.end(), *x) == t.end()) t.push_back(*x);
  return t;
}

// The fence pairs for `test`: the given one, else the matrix (each fence on both sides; mp also
// __threadfence() on one side only). A single name for corr is the reader's fence; its writer
// takes none, or rel-acq.
std::vector<std::pair<Fence, Fence>> fences_for(const Options& o, Test test) {
  const auto one = [&](Fence f) {
    if (test == Test::corr && f != Fence::rel_acq) return std::pair<Fence, Fence>{Fence::none, f};
    return std::pair<Fence, Fence>{f, f};
  };
  if (o.fence.size() == 1) return {one(*parse_fence(o.fence[0]))};
  if (o.fence.size() == 2) return {{*parse_fence(o.fence[0]), *parse_fence(o.fence[1])}};
  std::vector<std::pair<Fence, Fence>> out;
  for (int f = 0; f < kFences; ++f) out.push_back(one(static_cast<Fence>(f)));
  if (test == Test::mp) {  // each half of the pair alone
    out.push_back({Fence::device, Fence::none});
    out.push_back({Fence::none, Fence::device});
  }
  return out;
}

const Fence kHostFences[] = {Fence::none, Fence::device, Fence::system};

std::string fence_code(Fence f) {
  switch (f) {
    case Fence::device: return "__threadfence()";
    case Fence::system: return "__threadfence_system()";
    default: return say("host.no-fence");
  }
}

// Stale reads seen where the model forbids them (the weak outcome of host_observer_program).
bool host_forbidden_seen(const ModelVerdict& model, const HostObserverRun& r) {
  return r.stale > 0 && !model.allowed[static_cast<std::size_t>(outcome_index(1, 0))];
}

}  // namespace

// ---- the parts -----------------------------------------------------------------------------------------

std::vector<LitmusRow> litmus_rows(const Options& o, long long iterations) {
  const Access access = o.access == "volatile" ? Access::vol : Access::plain;
  const Placement placement = o.placement == "same-block" ? Placement::same_block : Placement::different_blocks;
  std::vector<LitmusRow> rows;
  for (Test t : tests_of(o))
    for (const auto& [f0, f1] : fences_for(o, t))
      rows.push_back(make_row(LitmusSpec{t, {f0, f1}, access, placement}, iterations, kWaitBudgetNs));
  return rows;
}

report::Section litmus_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("litmus", say("litmus.title"));
  s.paragraph(say("litmus.about"));
  s.paragraph(say("litmus.about-allowed"));
  if (!rows.empty()) {
    const LitmusSpec& first = rows.front().spec;
    s.fact("access", say("litmus.access"), std::string(to_string(first.access)),
           report::Format::plain,
           say(first.access == Access::plain ? "litmus.access-plain-note" : "litmus.access-volatile-note"));
    s.fact("sides", say("litmus.sides"),
           say(first.placement == Placement::same_block ? "litmus.sides-one-block" : "litmus.sides-two-blocks"),
           report::Format::plain, "--placement");
  }
  add_grid_facts(s, rows);
  if (gpu_run && !rows.empty() && rows.front().gpu)
    add_same_sm_fact(s, "pairs-same-sm", say("litmus.pairs-same-sm"), *rows.front().gpu);
  s.add(litmus_table(say("litmus.table-title"), rows, gpu_run, TableOptions{}));
  add_litmus_checks(s, rows, gpu_run, say("litmus.no-gpu"));
  s.note(say("litmus.ptx-note"));
  return s;
}

report::Section litmus_part(Run& run) {
  auto rows = litmus_rows(run.options, run.iterations);
  run_rows(rows, run.ctx.gpu);
  return litmus_section(rows, run.ctx.gpu);
}

report::Section scope_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("scope", say("scope.title"));
  s.paragraph(say("scope.about"));
  for (const auto& r : rows)
    if (r.gpu && r.spec.fence[0] == Fence::none) {
      const bool one = r.spec.placement == Placement::same_block;
      add_same_sm_fact(s, one ? "pairs-same-sm-one-block" : "pairs-same-sm-two-blocks",
                       say(one ? "scope.pairs-same-sm-one-block" : "scope.pairs-same-sm-two-blocks"), *r.gpu);
    }
  TableOptions opt;
  opt.placement = true;
  s.add(litmus_table(say("scope.table-title"), rows, gpu_run, opt));
  add_litmus_checks(s, rows, gpu_run, say("counts-need-gpu"));
  return s;
}

report::Section scope_part(Run& run) {
  std::vector<LitmusRow> rows;
  for (Placement p : {Placement::same_block, Placement::different_blocks})
    for (Fence f : {Fence::none, Fence::block, Fence::device})
      rows.push_back(make_row(LitmusSpec{Test::mp, {f, f}, Access::plain, p}, run.iterations, kWaitBudgetNs));
  run_rows(rows, run.ctx.gpu);
  return scope_section(rows, run.ctx.gpu);
}

report::Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  report::Section s("volatile", say("volatile.title"));
  s.paragraph(say("volatile.about"));
  s.paragraph(say("volatile.about-rows"));
  TableOptions opt;
  opt.label = true;
  opt.access = true;
  s.add(litmus_table(say("volatile.table-title"), rows, gpu_run, opt));
  for (const auto& r : rows)
    if (r.timeouts_expected)
      s.note(say("volatile.plain-wait-note",
                 {{"budget", report::format_value(budget_ms(r.budget_ns), report::Format::ms, true)}}));
  add_litmus_checks(s, rows, gpu_run, say("counts-need-gpu"));
  return s;
}

report::Section volatile_part(Run& run) {
  struct Case {
    const char* label;  // a key of the lesson's catalog
    Test test;
    Fence fence;
    Access access;
    bool weak_wait;
  };
  const Case cases[] = {
      {"volatile.case-mp-plain-wait", Test::mp, Fence::none, Access::plain, true},
      {"volatile.case-mp-volatile-wait", Test::mp, Fence::none, Access::plain, false},
      {"volatile.case-mp-all-volatile", Test::mp, Fence::none, Access::vol, false},
      {"volatile.case-sb-all-volatile", Test::sb, Fence::none, Access::vol, false},
      {"volatile.case-lb-all-volatile", Test::lb, Fence::none, Access::vol, false},
      {"volatile.case-sb-fence", Test::sb, Fence::device, Access::vol, false},
      {"volatile.case-sb-release-acquire", Test::sb, Fence::rel_acq, Access::vol, false},
  };
  std::vector<LitmusRow> rows;
  for (const auto& c : cases) {
    const LitmusSpec s{c.test, {c.fence, c.fence}, c.access, Placement::different_blocks, c.weak_wait};
    // The wait on a plain load runs one round: a wait that gives up stops its thread.
    LitmusRow row = make_row(s, c.weak_wait ? 1 : run.iterations, c.weak_wait ? kPlainWaitBudgetNs : kWaitBudgetNs);
    row.label = say(c.label);
    row.timeouts_expected = c.weak_wait;
    rows.push_back(std::move(row));
  }
  run_rows(rows, run.ctx.gpu);
  return volatile_section(rows, run.ctx.gpu);
}

report::Section host_observer_section(const HostObserverSpec& spec, const std::vector<HostOutcome>& runs, bool gpu_run) {
  report::Section s("host-observer", say("host.title"));
  s.paragraph(say("host.about"));
  s.paragraph(say("host.about-scope"));
  s.fact("rounds", say("host.rounds"), I{spec.rounds}, Format::count, say("host.rounds-note"));
  s.fact("words", say("host.words"), I{kHostDataWords}, Format::count, say("host.words-note"));
  s.fact("device-wait", say("host.device-wait"), budget_ms(spec.device_budget_ns), Format::ms);
  s.fact("host-wait", say("host.host-wait"), I{spec.host_budget_ms}, Format::ms);
  report::Table t("rounds", say(gpu_run ? "host.table-gpu" : "host.table-model"));
  t.column("fence", say("host.gpu-side")).column("ptx", "PTX");
  if (gpu_run)
    t.column("completed", say("host.completed"), Format::count)
        .column("stale", say("host.stale"), Format::count)
        .column("stale-words", say("host.stale-words"), Format::count);
  t.column("verdict", say("host.verdict"));
  // The fence and the model's verdict as ids beside their words: what an exercise reads.
  t.column("fence-id", say("host.fence-id")).column("verdict-id", say("host.verdict-id"));
  bool forbidden = false, gave_up = false;
  std::uint64_t rounds = 0;
  std::string found;
  for (const auto& o : runs) {
    const ModelVerdict m = ptx_model(host_observer_program(o.fence));
    const bool allowed = m.allowed[static_cast<std::size_t>(outcome_index(1, 0))];
    std::vector<std::pair<std::string, Value>> cells{
        {"fence", fence_code(o.fence)},
        {"ptx", std::string(o.fence == Fence::device ? "fence.sc.gpu" : o.fence == Fence::system ? "fence.sc.sys" : "-")}};
    std::string verdict = allowed ? say("verdict.allowed")
                                  : say("verdict.forbidden", {{"reason", m.reasons[static_cast<std::size_t>(outcome_index(1, 0))]}});
    report::RowMark mark = report::RowMark::none;
    if (gpu_run && o.gpu) {
      const HostObserverRun& g = *o.gpu;
      const bool bad = host_forbidden_seen(m, g);
      forbidden = forbidden || bad;
      gave_up = gave_up || g.device_gave_up || g.host_gave_up;
      rounds += g.rounds;
      if (bad) {
        mark = report::RowMark::mismatch;
        found += std::string(found.empty() ? "" : "; ") + fence_code(o.fence) + ": " + grouped(g.stale);
      }
      cells.insert(cells.end(), {{"completed", static_cast<I>(g.rounds)},
                                 {"stale", static_cast<I>(g.stale)},
                                 {"stale-words", static_cast<I>(g.stale_words)}});
      // Not bad and not allowed: nothing stale was seen.
      verdict = say(bad       ? "verdict.forbidden-seen"
                    : allowed ? (g.stale ? "verdict.allowed-seen" : "verdict.allowed-not-seen")
                              : "verdict.forbidden-not-seen");
    }
    cells.emplace_back("verdict", verdict);
    cells.emplace_back("fence-id", std::string(to_string(o.fence)));
    cells.emplace_back("verdict-id", std::string(allowed ? "allowed" : "forbidden"));
    t.row(cells, mark);
  }
  t.legend.push_back(say("host.legend-gpu"));
  t.legend.push_back(say("host.legend-host"));
  s.add(std::move(t));
  if (!gpu_run) {
    s.note(say("host.no-gpu"));
    return s;
  }
  s.agreement("no-forbidden-outcome", say("host.no-forbidden"), !forbidden,
              forbidden ? say("host.stale-rounds-with", {{"found", found}})
                        : say("host.rounds-count", {{"rounds", grouped(rounds)}}));
  s.check("no-wait-timed-out", say("host.no-timeout"), !gave_up, say(gave_up ? "host.gave-up" : "host.every-round"));
  s.note(say("host.allowed-note"));
  return s;
}

report::Section host_observer_part(Run& run) {
  HostObserverSpec spec;
  if (run.ctx.bench) spec.rounds *= 10;
  std::vector<HostOutcome> runs;
  for (Fence f : kHostFences)
    runs.push_back({f, run.ctx.gpu ? std::optional<HostObserverRun>(gpu_host_observer(spec, f)) : std::nullopt});
  return host_observer_section(spec, runs, run.ctx.gpu);
}

}  // namespace cudasync::threadfence
