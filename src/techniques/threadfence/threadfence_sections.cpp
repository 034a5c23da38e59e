#include "techniques/threadfence/threadfence_sections.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/report/text_format.hpp"

namespace cudasync::threadfence {

using report::Check;
using report::LaneTable;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;
using report::fixed;
using report::grouped;

namespace {

std::string ms_text(unsigned long long ns) {
  return ns % 1000000ull == 0 ? std::to_string(ns / 1000000ull) + " ms" : fixed(static_cast<double>(ns) / 1e6, 1) + " ms";
}

bool is_lesson_kernel(const std::string& mangled) { return mangled.find("11threadfence") != std::string::npos; }

std::string opcode(const std::string& ins) {
  std::string op = ins.rfind('@', 0) == 0 ? ins.substr(ins.find(' ') + 1) : ins;
  return op.substr(0, op.find(' '));
}

bool has_prefix(const std::vector<std::string>& ins, const std::string& prefix) {
  return std::any_of(ins.begin(), ins.end(), [&](const std::string& i) { return opcode(i).rfind(prefix, 0) == 0; });
}

// ---- the litmus tables --------------------------------------------------------------------------------

const char* generic_code(Test t, int side) {
  switch (t) {
    case Test::mp: return side == 0 ? "x = 1; F0; y = 1" : "read x; wait until y == 1; F1; r1 = x";
    case Test::sb: return side == 0 ? "x = 1; F0; r0 = y" : "y = 1; F1; r1 = x";
    case Test::lb: return side == 0 ? "r0 = x; F0; y = 1" : "r1 = y; F1; x = 1";
    case Test::corr: return side == 0 ? "x = 1" : "r0 = x; F1; r1 = x";
  }
  return "";
}

struct TableOptions {
  bool label = false;      // a "case" column first
  bool access = false;     // an access column
  bool placement = false;  // a "sides in" column
};

struct TableSummary {
  std::uint64_t completed = 0;
  int rows = 0;
  std::vector<std::string> findings;   // forbidden outcomes seen
  std::vector<std::string> timeouts;   // rows with unexpected timeouts
};

std::string verdict_of(const LitmusRow& r, bool& finding) {
  finding = false;
  const int w = weak_outcome(r.spec.test);
  const bool weak_allowed = r.model.weak_allowed(r.spec.test);
  if (!r.gpu) return weak_allowed ? "allowed" : "forbidden (" + r.model.forbidden_by + ")";
  const LitmusCounts& c = *r.gpu;
  for (int o = 0; o < kOutcomes; ++o)
    if (c.outcome[o] > 0 && !r.model.allowed[static_cast<std::size_t>(o)]) finding = true;
  if (r.timeouts_expected) {
    if (c.timed_out == 0) return "every wait saw y = 1";
    return grouped(c.timed_out) + " of " + grouped(c.instances) + " waits gave up";
  }
  if (finding) return "FORBIDDEN, SEEN";
  const bool seen = c.outcome[w] > 0;
  if (weak_allowed) return seen ? "allowed, seen" : "allowed, not seen";
  return "forbidden, not seen";
}

LaneTable litmus_table(const std::string& id, const std::string& title, const std::vector<LitmusRow>& rows,
                       bool gpu_run, const TableOptions& opt, TableSummary& sum) {
  LaneTable t;
  t.id = id;
  t.title = title;
  if (opt.label) t.columns.push_back({"case", "case", ""});
  t.columns.push_back({"test", "test", ""});
  t.columns.push_back({"fence", "fence", ""});
  if (opt.access) t.columns.push_back({"access", "access", ""});
  if (opt.placement) t.columns.push_back({"sides_in", "sides in", ""});
  t.columns.push_back({"instances", "instances", ""});
  for (int o = 0; o < kOutcomes; ++o) {
    const std::string k = std::to_string(o / 2) + std::to_string(o % 2);
    t.columns.push_back({"r" + k, k, ""});
  }
  t.columns.push_back({"weak_per_million", "weak/M", ""});
  t.columns.push_back({"allowed", "allowed (PTX model)", ""});
  t.columns.push_back({"verdict", "verdict", ""});
  std::vector<Test> tests;
  for (const auto& r : rows) {
    if (std::find(tests.begin(), tests.end(), r.spec.test) == tests.end()) tests.push_back(r.spec.test);
    std::vector<Value> v;
    if (opt.label) v.emplace_back(r.label);
    v.emplace_back(std::string(to_string(r.spec.test)));
    v.emplace_back(fences_text(r.spec));
    if (opt.access) {
      const bool all_atomic = r.spec.test != Test::mp && r.spec.fence[0] == Fence::rel_acq && r.spec.fence[1] == Fence::rel_acq;
      v.emplace_back(all_atomic ? std::string("atomic_ref") : std::string(to_string(r.spec.access)));
    }
    if (opt.placement) v.emplace_back(std::string(r.spec.placement == Placement::same_block ? "one block" : "two blocks"));
    bool finding = false;
    const std::string verdict = verdict_of(r, finding);
    if (r.gpu) {
      const LitmusCounts& c = *r.gpu;
      v.emplace_back(static_cast<I>(c.instances));
      for (int o = 0; o < kOutcomes; ++o) v.emplace_back(static_cast<I>(c.outcome[o]));
      const std::uint64_t done = c.completed();
      const std::uint64_t weak = c.outcome[weak_outcome(r.spec.test)];
      v.emplace_back(done == 0 ? std::string("-") : fixed(1e6 * static_cast<double>(weak) / static_cast<double>(done), 1));
      sum.completed += done;
      if (finding) {
        std::string seen;
        for (int o = 0; o < kOutcomes; ++o)
          if (c.outcome[o] > 0 && !r.model.allowed[static_cast<std::size_t>(o)])
            seen += (seen.empty() ? "" : ", ") + outcome_text(o) + " " + grouped(c.outcome[o]) + " times";
        sum.findings.push_back(std::string(to_string(r.spec.test)) + " with fence " + fences_text(r.spec) + " (" +
                               to_string(r.spec.access) + ", " + to_string(r.spec.placement) + "): " + seen + " in " +
                               grouped(done) + " instances; the PTX memory model forbids it (" +
                               r.model.reasons[static_cast<std::size_t>(weak_outcome(r.spec.test))] + ")");
      }
      if (c.timed_out > 0 && !r.timeouts_expected)
        sum.timeouts.push_back(std::string(to_string(r.spec.test)) + " " + fences_text(r.spec) + ": " +
                               grouped(c.timed_out) + " of " + grouped(c.instances));
    } else {
      v.emplace_back(Undefined{});
      for (int o = 0; o < kOutcomes; ++o) v.emplace_back(Undefined{});
      v.emplace_back(Undefined{});
    }
    v.emplace_back(allowed_text(r.model));
    v.emplace_back(verdict);
    ++sum.rows;
    t.add_row(std::move(v), finding ? RowMark::mismatch : RowMark::none);
  }
  for (Test test : tests) {
    const int w = weak_outcome(test);
    t.legend.push_back(std::string(to_string(test)) + " (" + test_title(test) + ")  side 0: " + generic_code(test, 0) +
                       "  |  side 1: " + generic_code(test, 1));
    t.legend.push_back(std::string(std::string(to_string(test)).size() + 2, ' ') + registers_meaning(test) +
                       "; weak: " + std::to_string(w / 2) + std::to_string(w % 2));
  }
  t.legend.push_back("F: none | block = __threadfence_block() | device = __threadfence() | system = "
                     "__threadfence_system()");
  t.legend.push_back("   rel-acq = no fence: the side's synchronizing accesses are cuda::atomic_ref (device scope)");
  t.legend.push_back("   stores with memory_order_release, loads with memory_order_acquire (mp: the flag y only)");
  t.legend.push_back("   two names (device,none): side 0's fence, side 1's fence");
  if (gpu_run) t.legend.push_back("00 .. 11: instances that ended with r0 r1 = 00 .. 11; weak/M: weak outcomes per million");
  return t;
}

void add_litmus_checks(Section& s, const TableSummary& sum, const std::vector<LitmusRow>& rows) {
  s.checks.push_back(report::model_agreement("no outcome the PTX memory model forbids was seen", sum.findings.empty(),
                               sum.findings.empty() ? std::to_string(sum.rows) + " configurations, " +
                                                          grouped(sum.completed) + " completed instances"
                                                    : std::to_string(sum.findings.size()) + " configurations broke it"));
  std::uint64_t expected_waits = 0;
  for (const auto& r : rows)
    if (r.gpu && !r.timeouts_expected) expected_waits += r.gpu->instances;
  std::string t;
  for (const auto& x : sum.timeouts) t += (t.empty() ? "" : "; ") + x;
  s.checks.push_back({"every wait ended before its deadline (nothing was stuck)", sum.timeouts.empty(),
                      sum.timeouts.empty() ? grouped(expected_waits) + " instances, each with its waits bounded"
                                           : "timed out: " + t});
  for (const auto& f : sum.findings) s.notes.push_back("FINDING: " + f);
}

void add_grid_facts(Section& s, const std::vector<LitmusRow>& rows) {
  const LitmusRow* first = nullptr;
  for (const auto& r : rows)
    if (r.gpu && !r.timeouts_expected) {
      first = &r;
      break;
    }
  if (!first) return;
  const LitmusCounts& c = *first->gpu;
  s.facts.push_back({"grid", std::to_string(c.blocks) + " blocks x " + std::to_string(c.threads) + " threads", "",
                     grouped(c.pairs_per_round) + " pairs at once, every block resident"});
  s.facts.push_back({"instances per row", grouped(c.instances), "",
                     std::to_string(c.rounds) + " rounds of fresh locations (--iterations " + grouped(static_cast<std::uint64_t>(first->iterations)) + ", rounded up to whole rounds)"});
  s.facts.push_back({"each wait gives up after", ms_text(first->budget_ns), "", "the rendezvous and mp's wait for the flag"});
}

std::string same_sm_text(const LitmusCounts& c) {
  if (c.pairs_checked == 0) return "-";
  return grouped(c.pairs_same_sm) + " of " + grouped(c.pairs_checked) + " pairs";
}

}  // namespace

LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns) {
  LitmusRow r;
  r.spec = spec;
  r.iterations = iterations;
  r.budget_ns = budget_ns;
  r.model = ptx_model(spec);
  return r;
}

// ---------------------------------------------------------------------------------------------------

Section setup_section(const SetupInfo& in) {
  Section s;
  s.id = "setup";
  s.title = "setup: fences, litmus tests and the PTX memory model";
  s.paragraphs.push_back(
      "A fence orders the calling thread's own memory accesses as other threads (in its block, on its GPU, in the "
      "system) observe them. It makes nobody wait and publishes nothing by itself: it works in pairs, a fence "
      "(or a release) on the writer's side and a fence (or an acquire) on the reader's, linked by a flag the reader "
      "sees. Litmus tests show what goes wrong without them; the reference model says what the PTX memory model "
      "allows.");
  s.facts.push_back({"backend", in.gpu ? in.device : std::string("reference model"), "",
                     in.gpu ? "" : "no GPU: the model's allowed outcomes only; counts, costs and times need a GPU"});
  std::string parts;
  for (const auto& p : in.parts) parts += (parts.empty() ? "" : ", ") + p;
  s.facts.push_back({"parts", parts, "", "--part"});
  s.facts.push_back({"iterations per litmus row", grouped(static_cast<std::uint64_t>(in.iterations)), "",
                     "--iterations (at least; whole rounds)"});
  s.facts.push_back({"seed", static_cast<I>(in.seed), "", "--seed: lastBlock's input, WorkQueue's costs"});
  return s;
}

Section litmus_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  Section s;
  s.id = "litmus";
  s.title = "litmus tests: what a fence forbids, and what the GPU did";
  s.paragraphs.push_back(
      "Each instance is two threads on fresh locations x and y (0 at the start; every store writes 1). By default "
      "side 0 runs in block 2k and side 1 in block 2k+1, lane for lane, and as many instances run at once as the "
      "GPU holds. Both sides first meet at a per-instance counter, so that they run the test at the same moment; "
      "every wait has a deadline. In mp the consumer has read x once before it waits for the flag, as a polling "
      "program would.");
  s.paragraphs.push_back(
      "'allowed' lists the outcomes r0 r1 the PTX memory model permits for exactly the PTX these kernels execute: "
      "the model enumerates every candidate execution and keeps those its axioms accept (PTX ISA, \"Memory "
      "Consistency Model\", in the formal form of Lustig et al., ASPLOS 2019). An allowed weak outcome may or may "
      "not appear on a given GPU; a forbidden one that appears is a finding, and the check fails.");
  if (!rows.empty())
    s.facts.push_back({"access", std::string(to_string(rows.front().spec.access)), "",
                       rows.front().spec.access == Access::plain
                           ? "--access: ld.global / st.global, weak (mp's flag is volatile: the consumer waits on it)"
                           : "--access: ld.volatile / st.volatile, relaxed at system scope"});
  if (!rows.empty())
    s.facts.push_back({"sides", std::string(rows.front().spec.placement == Placement::same_block
                                                ? "in one block (two halves of its warps)"
                                                : "in two blocks (2k and 2k+1)"),
                       "", "--placement"});
  add_grid_facts(s, rows);
  if (gpu_run && !rows.empty() && rows.front().gpu)
    s.facts.push_back({"pairs with both sides on one SM", same_sm_text(*rows.front().gpu), "", "%smid of the blocks"});
  TableSummary sum;
  s.tables.push_back(litmus_table("outcomes", "outcomes per configuration", rows, gpu_run, TableOptions{}, sum));
  if (gpu_run) add_litmus_checks(s, sum, rows);
  else s.notes.push_back("counts need a GPU: the model says which outcomes are allowed, the GPU what happens");
  s.notes.push_back("what each fence compiles to: cudasync threadfence --show-ptx");
  return s;
}

Section scope_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  Section s;
  s.id = "scope";
  s.title = "scopes: __threadfence_block() inside one block, and across blocks";
  s.paragraphs.push_back(
      "__threadfence_block() is fence.sc.cta: its scope is the thread's own block. Two fences synchronize only when "
      "each one's scope contains the other thread (the PTX ISA's \"morally strong\"), so a block-scoped fence on "
      "both sides forbids the stale read of mp when producer and consumer share a block, and forbids nothing when "
      "they sit in different blocks, which in practice run on different SMs with their own L1 caches. "
      "__threadfence() (fence.sc.gpu) covers both.");
  if (gpu_run) {
    for (const auto& r : rows)
      if (r.gpu && r.spec.fence[0] == Fence::none) {
        s.facts.push_back({std::string("pairs on one SM, ") + (r.spec.placement == Placement::same_block ? "one block" : "two blocks"),
                           same_sm_text(*r.gpu), "", "%smid of the blocks"});
      }
  }
  TableSummary sum;
  TableOptions opt;
  opt.placement = true;
  s.tables.push_back(litmus_table("outcomes", "mp, plain data, volatile flag", rows, gpu_run, opt, sum));
  if (gpu_run) add_litmus_checks(s, sum, rows);
  else s.notes.push_back("counts need a GPU");
  return s;
}

Section volatile_section(const std::vector<LitmusRow>& rows, bool gpu_run) {
  Section s;
  s.id = "volatile";
  s.title = "volatile: every access reaches memory, and nothing is ordered";
  s.paragraphs.push_back(
      "Seed 000's g_mutex is volatile. volatile makes the compiler emit every access as an actual load or store "
      "(CUDA C++ Programming Guide, \"Volatile Qualifier\"); in PTX that is ld.volatile / st.volatile, which the "
      "memory model treats as relaxed accesses at system scope: never served stale from a cache, but not ordered "
      "with the thread's other accesses either. Only a fence, or a release/acquire access, orders.");
  s.paragraphs.push_back(
      "First row: the consumer waits for the flag with plain loads (ld.global). Nothing obliges a weak load to "
      "ever see another SM's store, and a line in the SM's L1 can keep answering 0: the wait may end only at its "
      "deadline. With volatile (every other row) every wait ends. The sb rows: volatile stores and loads, with no "
      "fence, can still end with r0 = r1 = 0 (each store still on its way while the other thread's load reads); a "
      "__threadfence() between them forbids it; release/acquire does not, because release/acquire orders a store "
      "before later stores, not before later loads.");
  TableSummary sum;
  TableOptions opt;
  opt.label = true;
  opt.access = true;
  s.tables.push_back(litmus_table("outcomes", "volatile against fences and atomics", rows, gpu_run, opt, sum));
  for (const auto& r : rows)
    if (r.timeouts_expected)
      s.notes.push_back("the wait on a plain load gives up after " + ms_text(r.budget_ns) +
                        " and its thread stops: the model lets every plain load of y return 0");
  if (gpu_run) add_litmus_checks(s, sum, rows);
  else s.notes.push_back("counts need a GPU");
  return s;
}

// ---- PTX and SASS ------------------------------------------------------------------------------------

std::vector<std::string> kernel_code(const KernelListing& listing, bool sass, const std::string& arch,
                                     const std::string& name, bool with_memory) {
  const auto& codes = sass ? listing.sass : listing.ptx;
  std::string want = arch;
  if (!sass) {
    const auto archs = listing.ptx_archs();
    want = archs.empty() ? "" : archs.back();
  }
  for (const auto& k : codes)
    if (k.arch == want && is_lesson_kernel(k.function) && short_kernel_name(k.function) == name)
      return with_memory ? k.ordering : k.instructions;
  return {};
}

namespace {

struct Probe {
  const char* kernel;
  const char* cuda;
  const char* maps_to;                // what the PTX ISA / the atomics ABI maps it to
  std::vector<std::string> ptx_must;  // opcodes the PTX must contain (prefixes)
};

const std::vector<Probe>& probes() {
  static const std::vector<Probe> p = {
      {"probe_threadfence_block", "__threadfence_block()", "membar.cta = fence.sc.cta", {"membar.cta"}},
      {"probe_threadfence", "__threadfence()", "membar.gl = fence.sc.gpu", {"membar.gl"}},
      {"probe_threadfence_system", "__threadfence_system()", "membar.sys = fence.sc.sys", {"membar.sys"}},
      {"probe_fence_sc_gpu", "asm(\"fence.sc.gpu;\")", "fence.sc.gpu", {"fence.sc.gpu"}},
      {"probe_fence_acq_rel_gpu", "atomic_thread_fence(acq_rel)", "fence.acq_rel.gpu", {"fence.acq_rel.gpu"}},
      {"probe_store_release", "ref.store(1, release)", "st.release.gpu", {"st.release.gpu"}},
      {"probe_load_acquire", "ref.load(acquire)", "ld.acquire.gpu", {"ld.acquire.gpu"}},
      {"probe_store_seq_cst", "ref.store(1, seq_cst)", "fence.sc.gpu; st.relaxed.gpu", {"fence.sc.gpu", "st.relaxed.gpu"}},
      {"probe_volatile", "volatile store; volatile load", "st.volatile; ld.volatile", {"st.volatile", "ld.volatile"}},
      {"probe_atomic_add", "v = atomicAdd(p, 1)", "atom.add (relaxed, gpu)", {"atom."}},
      {"probe_atomic_add_unused", "atomicAdd(p, 1), v unused", "atom.add (relaxed, gpu)", {"atom."}},
      {"probe_fetch_add_acq_rel", "ref.fetch_add(1, acq_rel)", "atom.acq_rel.gpu.add", {"atom."}},
  };
  return p;
}

std::string joined_list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

Section ptx_section(const KernelListing& listing, const std::string& arch) {
  Section s;
  s.id = "ptx";
  s.title = "PTX and SASS: what each fence and atomic compiles to in this build";
  s.paragraphs.push_back(
      "Seed 004 describes membar.cta / membar.gl / membar.sys as \"waits until prior memory accesses are "
      "performed\" at the CTA, GPU or system level. Since sm_70 the PTX ISA defines membar as a synonym of "
      "fence.sc with the scopes cta, gpu and sys: a fence in the memory model, not a wait for anyone. The rows "
      "below are one-fence probe kernels of this binary, read back at build time with cuobjdump: the PTX the "
      "compiler emitted and the SASS the assembler made of it (fences, atomics, and volatile, relaxed, acquire or "
      "release accesses; plain loads and stores are left out).");
  if (!listing.available) {
    s.notes.push_back(listing.reason);
    return s;
  }
  const auto ptx_archs = listing.ptx_archs();
  s.facts.push_back({"SASS shown", arch.empty() ? std::string("none in this build") : arch, "", ""});
  s.facts.push_back({"PTX shown", ptx_archs.empty() ? std::string("none in this build") : "compute_" + ptx_archs.back().substr(3),
                     "", ""});
  LaneTable ptx;
  ptx.id = "ptx";
  ptx.title = "PTX: what the compiler emitted for each probe";
  ptx.columns = {{"cuda", "CUDA C++", ""}, {"maps_to", "PTX ISA / atomics ABI", ""}, {"ptx", "PTX in this build", ""}};
  LaneTable sass;
  sass.id = "sass";
  sass.title = "SASS (" + (arch.empty() ? std::string("none in this build") : arch) + "): what the assembler made of it";
  sass.columns = {{"cuda", "CUDA C++", ""}, {"sass", "SASS", ""}};
  for (const auto& p : probes()) {
    ptx.add_row({std::string(p.cuda), std::string(p.maps_to), distinct_instructions(kernel_code(listing, false, arch, p.kernel, true))});
    if (!arch.empty()) sass.add_row({std::string(p.cuda), distinct_instructions(kernel_code(listing, true, arch, p.kernel, true))});
  }
  ptx.legend.push_back("ref: cuda::atomic_ref<unsigned, cuda::thread_scope_device>; atomic_thread_fence at device scope");
  ptx.legend.push_back("membar.{cta,gl,sys} is fence.sc.{cta,gpu,sys} on sm_70 and newer (PTX ISA, \"membar/fence\")");
  sass.legend.push_back("MEMBAR.SC / .ALL: the fence; ERRBAR: waits for the earlier accesses to be acknowledged;");
  sass.legend.push_back("CCTL.IVALL: invalidates the SM's L1, so later plain loads miss it and read from L2");
  sass.legend.push_back(".STRONG.GPU / .STRONG.SYS: a relaxed or volatile access at that scope (plain ones are not listed)");
  s.tables.push_back(std::move(ptx));
  if (!arch.empty()) s.tables.push_back(std::move(sass));
  for (const auto& p : probes()) {
    const auto code = kernel_code(listing, false, arch, p.kernel, true);
    std::string missing;
    for (const auto& m : p.ptx_must)
      if (!has_prefix(code, m)) missing += (missing.empty() ? "" : ", ") + m;
    s.checks.push_back({std::string(p.cuda) + " compiles to " + joined_list(p.ptx_must) + " in PTX", missing.empty(),
                        missing.empty() ? distinct_instructions(code) : "missing: " + missing + " (PTX: " + distinct_instructions(code) + ")"});
  }
  if (!arch.empty()) {
    const auto a = kernel_code(listing, true, arch, "probe_threadfence", false);
    const auto b = kernel_code(listing, true, arch, "probe_fence_sc_gpu", false);
    s.checks.push_back({"membar.gl and fence.sc.gpu are the same instruction (" + arch + ")", !a.empty() && a == b,
                        "__threadfence(): " + distinct_instructions(a) + "; fence.sc.gpu: " + distinct_instructions(b)});
  }
  return s;
}

// ---- cost ------------------------------------------------------------------------------------------------

const char* to_string(CostVariant v) {
  switch (v) {
    case CostVariant::none: return "store, no fence";
    case CostVariant::block: return "store + __threadfence_block()";
    case CostVariant::device: return "store + __threadfence()";
    case CostVariant::system: return "store + __threadfence_system()";
    case CostVariant::acq_rel: return "store + atomic_thread_fence(acq_rel, device)";
    case CostVariant::release_store: return "atomic_ref store(release), device";
    case CostVariant::l2_load_chain: return "dependent L2 load (__ldcg), the peer";
    case CostVariant::atomic_chain: return "dependent atomicAdd, the peer";
  }
  return "?";
}

const char* to_string(CostShape s) { return s == CostShape::one_thread ? "one thread" : "one warp per SM"; }

Section cost_section(const std::vector<CostRow>& rows, bool gpu_run, int iterations, bool bench) {
  Section s;
  s.id = "cost";
  s.title = "cost: ns per fence, beside a loop with no fence";
  s.paragraphs.push_back(
      "A loop of " + std::to_string(iterations) +
      " iterations; each stores to the thread's own word, then fences (or not). The figure is ns per iteration "
      "(clock64 in the kernel, converted with the SM clock measured against %globaltimer), one sample per launch. "
      "A fence waits for the thread's earlier stores to be performed at its scope, so a gpu-scoped fence after a "
      "store costs about a round trip to L2: the two peers measure that round trip in the same run.");
  if (bench) s.paragraphs.push_back("--bench: more iterations and launches per figure.");
  for (const auto& r : rows) {
    report::Measurement m;
    m.name = std::string(to_string(r.variant)) + ", " + to_string(r.shape);
    m.unit = "ns";
    m.samples = r.ns;
    m.needs_gpu = !gpu_run;
    s.measurements.push_back(std::move(m));
  }
  if (!gpu_run) return s;
  // Ratios: each fence against the loop without one, and against the L2 round trip of its shape.
  const auto median_of = [&](CostVariant v, CostShape shape) -> double {
    for (const auto& m : s.measurements)
      if (m.name == std::string(to_string(v)) + ", " + to_string(shape) && !m.samples.empty()) return m.median();
    return 0.0;
  };
  for (CostShape shape : {CostShape::one_thread, CostShape::warp_per_sm}) {
    const double none = median_of(CostVariant::none, shape), l2 = median_of(CostVariant::l2_load_chain, shape);
    for (CostVariant v : {CostVariant::block, CostVariant::device, CostVariant::system, CostVariant::acq_rel,
                          CostVariant::release_store}) {
      const double x = median_of(v, shape);
      if (x <= 0 || none <= 0 || l2 <= 0) continue;
      s.facts.push_back({std::string(to_string(v)) + ", " + to_string(shape),
                         fixed(x / none, 1) + "x the store alone, " + fixed(x / l2, 2) + "x an L2 round trip", "", ""});
    }
  }
  return s;
}

// ---- lastBlock --------------------------------------------------------------------------------------------

Section last_block_section(const LastBlockSpec& spec, std::uint64_t model_sum, const std::vector<LastBlockOutcome>& runs,
                           bool gpu_run) {
  Section s;
  s.id = "last_block";
  s.title = "lastBlock (seed 003): one launch, the last block to finish merges";
  s.paragraphs.push_back(
      "Every block sums its slice and one thread stores partial[blockIdx.x]; then the guard: __threadfence(), "
      "thread 0 takes a ticket with atomicAdd(counter, 1), and the block that draws gridDim.x - 1 adds all the "
      "partials. The fence before the atomicAdd is the release half: the partial is performed before the ticket. "
      "The seed stops there. The block that finds itself last also needs the acquire half, a fence after its "
      "atomicAdd and before it reads the partials; cudasync's guards add it, and the last block resets the counter "
      "for the next launch (the seed's never does, so its second launch finds no last block).");
  s.paragraphs.push_back(
      "Two broken guards run too, and are counted: without any fence, and with the seed's fences but the partial "
      "stored by the block's last thread while thread 0 takes the ticket: a fence orders only its own thread's "
      "accesses, so without a __syncthreads() between that store and the atomicAdd nothing keeps the ticket "
      "behind the partial. Each run has its own counter and partials, zeroed, so a partial read too early reads "
      "0 and the sum comes out wrong.");
  s.facts.push_back({"grid", std::to_string(spec.blocks) + " blocks x " + std::to_string(spec.threads) + " threads", "",
                     grouped(static_cast<std::uint64_t>(spec.elements())) + " elements, " +
                         std::to_string(spec.per_thread) + " per thread"});
  s.facts.push_back({"sum (reference model)", static_cast<I>(model_sum), "", "exact, 64-bit"});
  s.facts.push_back({"runs per guard", static_cast<I>(spec.runs), "", "launches, each with fresh counter and partials"});
  LaneTable t;
  t.id = "guards";
  t.title = "each guard, run after run";
  t.columns = {{"guard", "guard", ""},         {"model", "the model", ""},    {"runs", "runs", ""},
               {"right", "right sum", ""},     {"wrong", "wrong sum", ""},    {"reset", "counter reset", ""}};
  for (const auto& o : runs) {
    std::vector<Value> v{std::string(to_string(o.variant)),
                         std::string(guard_is_correct(o.variant) ? "always right" : "may be wrong")};
    RowMark mark = RowMark::none;
    if (o.gpu) {
      std::size_t right = 0, reset = 0;
      for (std::size_t i = 0; i < o.gpu->result.size(); ++i) {
        right += o.gpu->result[i] == model_sum && o.gpu->last_block[i] >= 0 ? 1 : 0;
        reset += o.gpu->counter[i] == 0 ? 1 : 0;
      }
      const std::size_t n = o.gpu->result.size();
      v.emplace_back(static_cast<I>(n));
      v.emplace_back(static_cast<I>(right));
      v.emplace_back(static_cast<I>(n - right));
      v.emplace_back(std::to_string(reset) + " of " + std::to_string(n));
      if (guard_is_correct(o.variant)) {
        if (right != n) mark = RowMark::mismatch;
        s.checks.push_back(report::model_agreement(std::string(to_string(o.variant)) + ": every run's sum is the model's", right == n,
                                     std::to_string(right) + " of " + std::to_string(n) + " runs"));
        s.checks.push_back({std::string(to_string(o.variant)) + ": the last block reset the counter in every run",
                            reset == n, std::to_string(reset) + " of " + std::to_string(n) + " runs"});
      } else {
        s.notes.push_back(std::string(to_string(o.variant)) + ": " + std::to_string(n - right) + " wrong of " +
                          std::to_string(n) + " runs on this GPU. The PTX memory model allows a wrong sum here; "
                          "none seen is not proof of correctness.");
      }
    } else {
      v.emplace_back(static_cast<I>(spec.runs));
      v.emplace_back(Undefined{});
      v.emplace_back(Undefined{});
      v.emplace_back(Undefined{});
    }
    t.add_row(std::move(v), mark);
  }
  t.legend.push_back("seed guard 1: __threadfence(); if (tid == 0) last = atomicAdd(counter, 1); "
                     "return __syncthreads_or(last == gridDim.x - 1)  (+ __threadfence() after the atomicAdd)");
  t.legend.push_back("seed guard 2: the same, with __shared__ unsigned last and __syncthreads()");
  s.tables.push_back(std::move(t));
  if (!gpu_run) s.notes.push_back("the runs need a GPU: the model gives the sum every right run must produce");
  return s;
}

// ---- WorkQueue --------------------------------------------------------------------------------------------

namespace {

std::string bar(double v, double max, int width = 24) {
  if (max <= 0) return "";
  const int n = static_cast<int>(v / max * width + 0.5);
  return std::string(static_cast<std::size_t>(std::max(0, n)), '#');
}

}  // namespace

Section queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run) {
  Section s;
  s.id = "work_queue";
  s.title = "WorkQueue (seed 003): fetch the next item when free, against a fixed assignment";
  s.paragraphs.push_back(
      "Items of very uneven cost. A-priori: block b does items b, b + G, b + 2G, ... decided before the launch. "
      "WorkQueue: thread 0 takes the next index with atomicAdd on a counter in global memory, hands it to its "
      "block through shared memory, and the block fetches again when done. No fence is needed: the items were "
      "written before the launch, and the atomicAdd gives every index to exactly one block.");
  s.paragraphs.push_back(
      "The seed's fetch() passes a size_t member by value to atomicAdd (it needs a pointer, and atomicAdd has no "
      "size_t overload: unsigned long long), and returns a reference to the __shared__ item, which the next "
      "fetch() overwrites: the seed asks for a __syncthreads() between two calls; here the item is copied out and "
      "a second barrier follows.");
  const auto costs = spec.cost_units;
  const Schedule st = static_schedule(costs, spec.blocks), qu = queue_schedule(costs, spec.blocks);
  std::uint64_t total = 0;
  std::uint32_t biggest = 0;
  for (auto c : costs) {
    total += c;
    biggest = std::max(biggest, c);
  }
  s.facts.push_back({"blocks x threads", std::to_string(spec.blocks) + " x " + std::to_string(spec.threads), "", ""});
  s.facts.push_back({"items", static_cast<I>(spec.items()), "",
                     "costs 1..32 units (log-uniform, --seed), " + std::to_string(total) + " units in all, largest " +
                         std::to_string(biggest)});
  s.facts.push_back({"unit", std::to_string(spec.unit_cycles) + " cycles", "", "of spinning on clock64, every thread of the block"});
  s.facts.push_back({"slowest block, a-priori (model)", std::to_string(st.makespan()) + " units", "",
                     "the average is " + fixed(static_cast<double>(total) / spec.blocks, 1)});
  s.facts.push_back({"slowest block, WorkQueue (model)", std::to_string(qu.makespan()) + " units", "",
                     "greedy: never more than the average + the largest item"});
  s.facts.push_back({"a-priori / WorkQueue (model)", fixed(static_cast<double>(st.makespan()) / static_cast<double>(qu.makespan()), 2), "", ""});
  const bool have = gpu.a_priori && gpu.queue;
  std::vector<double> us_static, us_queue;
  if (have) {
    for (long long c : gpu.a_priori->block_cycles) us_static.push_back(static_cast<double>(c) * gpu.a_priori->ns_per_cycle / 1000.0);
    for (long long c : gpu.queue->block_cycles) us_queue.push_back(static_cast<double>(c) * gpu.queue->ns_per_cycle / 1000.0);
    const double ms = *std::max_element(us_static.begin(), us_static.end());
    const double mq = *std::max_element(us_queue.begin(), us_queue.end());
    s.facts.push_back({"slowest block, a-priori (GPU)", fixed(ms, 1) + " us", "", "clock64 from the block's start to its end"});
    s.facts.push_back({"slowest block, WorkQueue (GPU)", fixed(mq, 1) + " us", "", ""});
    s.facts.push_back({"a-priori / WorkQueue (GPU)", fixed(ms / mq, 2), "", ""});
  }
  LaneTable t;
  t.id = "blocks";
  t.title = have ? "time per block (GPU, us)" : "work per block (reference model, units)";
  t.columns = {{"block", "block", ""},          {"a_priori_items", "items", ""}, {"a_priori", have ? "a-priori us" : "a-priori units", ""},
               {"a_priori_bar", "", ""},        {"queue_items", "items", ""},    {"queue", have ? "WorkQueue us" : "WorkQueue units", ""},
               {"queue_bar", "", ""}};
  double max = 0;
  for (int b = 0; b < spec.blocks; ++b) {
    const auto i = static_cast<std::size_t>(b);
    max = std::max({max, have ? us_static[i] : static_cast<double>(st.block_units[i]),
                    have ? us_queue[i] : static_cast<double>(qu.block_units[i])});
  }
  for (int b = 0; b < spec.blocks; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const double a = have ? us_static[i] : static_cast<double>(st.block_units[i]);
    const double q = have ? us_queue[i] : static_cast<double>(qu.block_units[i]);
    // Times as text, padded so that they line up on the right like numbers.
    const auto us = [](double v) {
      const std::string text = fixed(v, 1);
      return Value(std::string(text.size() < 8 ? 8 - text.size() : 0, ' ') + text);
    };
    t.add_row({static_cast<I>(b), static_cast<I>(have ? gpu.a_priori->block_items[i] : st.block_items[i]),
               have ? us(a) : Value(static_cast<I>(st.block_units[i])), bar(a, max),
               static_cast<I>(have ? gpu.queue->block_items[i] : qu.block_items[i]),
               have ? us(q) : Value(static_cast<I>(qu.block_units[i])), bar(q, max)});
  }
  s.tables.push_back(std::move(t));
  if (!have) {
    if (!gpu_run) s.notes.push_back("times need a GPU: the model's units show the same imbalance");
    return s;
  }
  // Every item exactly once; the fixed assignment exactly as the model says; the checksum.
  const std::uint64_t want = checksum_of_all(spec.items());
  for (const auto* run : {&*gpu.a_priori, &*gpu.queue}) {
    const bool queue = run == &*gpu.queue;
    const std::string name = queue ? "WorkQueue" : "a-priori";
    std::size_t once = 0;
    for (auto n : run->times_processed) once += n == 1 ? 1 : 0;
    const bool ok = once == run->times_processed.size() && run->checksum == want;
    s.checks.push_back(report::model_agreement(name + ": every item processed exactly once", ok,
                                 std::to_string(once) + " of " + std::to_string(run->times_processed.size()) +
                                     " items once, checksum " + (run->checksum == want ? "equal" : "differs")));
  }
  bool same = true;
  for (std::size_t i = 0; i < st.item_block.size(); ++i) same = same && gpu.a_priori->processed_by[i] == st.item_block[i];
  s.checks.push_back(report::model_agreement("a-priori: each item done by the block the model assigns", same,
                               std::to_string(st.item_block.size()) + " items"));
  return s;
}

}  // namespace cudasync::threadfence
