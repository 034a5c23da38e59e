#include "techniques/lock/lock_sections.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lock_section_tools.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace cudasync::lock {

using report::Check;
using report::Fact;
using report::LaneTable;
using report::Measurement;
using report::RowMark;
using report::Section;
using report::Undefined;
using report::Value;
using I = std::int64_t;
using report::fixed;
using report::list_of;

std::string stuck_text(const LockRun& r) {
  return std::to_string(r.gave_up) + " threads gave up at their deadline; blocks still spinning: " +
         list_of(r.stuck_blocks) + " (completed " + std::to_string(r.completed) + " of " + std::to_string(r.expected) +
         " acquisitions)";
}

std::string count_text(long long count, long long expected) {
  return std::to_string(count) + " of " + std::to_string(expected) + (count == expected ? " (exact)" : "");
}

// The samples of a part's launches as ns per acquisition.
Measurement per_acquisition(const std::string& name, const std::vector<LockRun>& runs, bool gpu_run,
                            const std::string& note) {
  std::vector<double> ns;
  for (const auto& r : runs)
    if (!r.timed_out()) ns.push_back(ns_per_acquisition(r));
  return report::measured(name, "ns", std::move(ns), gpu_run, note);
}

Check exact_check(const std::string& name, const std::vector<LockRun>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const LockRun& r = runs[i];
    if (r.timed_out()) return {name, false, "launch " + std::to_string(i + 1) + ": " + stuck_text(r)};
    if (r.count != r.expected)
      return {name, false, "launch " + std::to_string(i + 1) + ": count " + count_text(r.count, r.expected)};
    if (r.answers_bad > 0)
      return {name, false, "launch " + std::to_string(i + 1) + ": " + std::to_string(r.answers_bad) + " of " +
                               std::to_string(r.answers_checked) + " answers wrong; " + r.first_bad_answer};
  }
  const long long each = runs.empty() ? 0 : runs.front().expected;
  return {name, !runs.empty(), "count " + std::to_string(each) + " in each of " + std::to_string(runs.size()) + " launches"};
}

LaneTable program_table(Protocol p, const std::string& id) {
  const Program prog = program_of(p);
  LaneTable t;
  t.id = id;
  t.title = "the program the model runs: " + prog.name;
  t.columns = {{"pc", "pc", ""}, {"code", "code", ""}};
  for (std::size_t i = 0; i < prog.code.size(); ++i) t.add_row({static_cast<I>(i), prog.code[i].code});
  return t;
}

LaneTable trace_table(const SimResult& r, const std::string& id, const std::string& title, bool show_l1) {
  LaneTable t;
  t.id = id;
  t.title = title;
  t.columns = {{"step", "step", ""}};
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    t.columns.push_back({"t" + std::to_string(k), r.columns[k], ""});
  t.columns.push_back({"mutex", "mutex", ""});
  t.columns.push_back({"cnt", "cnt (L2)", ""});
  if (show_l1) t.columns.push_back({"l1", "counter in L1", ""});
  t.columns.push_back({"note", "note", ""});
  for (const auto& row : r.trace) {
    std::vector<Value> v{static_cast<I>(row.step)};
    for (const auto& c : row.cells) v.push_back(c.empty() ? Value{Undefined{}} : Value{c});
    v.push_back(static_cast<I>(row.mutex));
    v.push_back(static_cast<I>(row.cnt));
    if (show_l1) v.push_back(row.l1);
    v.push_back(row.note);
    t.add_row(std::move(v));
  }
  if (r.rows_not_shown > 0)
    t.legend.push_back("... " + std::to_string(r.rows_not_shown) + " more steps, not shown; the run " +
                       std::string(to_string(r.outcome)) + " after " + std::to_string(r.rounds) + " steps");
  return t;
}

std::string model_outcome_text(const SimResult& r) {
  switch (r.outcome) {
    case Outcome::completed:
      return "completes in " + std::to_string(r.rounds) + " steps, count " + count_text(r.count, r.expected);
    case Outcome::deadlock:
      return "deadlock: the state after step " + std::to_string(r.repeat_from + r.cycle_rounds) +
             " is the state after step " + std::to_string(r.repeat_from);
    case Outcome::round_limit: return "undecided after " + std::to_string(r.rounds) + " steps";
  }
  return "";
}

std::string regime_title(Regime r) {
  return r == Regime::lockstep ? "lockstep (one pc per warp: pre-Volta, cc < 7.0)"
                               : "independent (a pc per lane: Volta and newer)";
}

namespace {

bool is_lesson_kernel(const std::string& mangled) { return mangled.find("8cudasync4lock") != std::string::npos; }

}  // namespace

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::book: return "the seed's lock, *cnt = *cnt + 1, no fence";
    case Variant::book_atomic_add: return "fix 1: atomicAdd(cnt, 1) as the critical section";
    case Variant::lock_functions: return "lock() / unlock() as functions, with __threadfence";
    case Variant::fenced: return "fix 2: __threadfence() in lock() and unlock()";
    case Variant::acq_rel: return "fix 3: cuda::atomic_ref, acquire / release";
    case Variant::thread_lock: return "the seed's true thread lock";
    case Variant::backoff: return "CAS + exponential back-off";
    case Variant::ticket: return "ticket lock";
    case Variant::warp_aggregated: return "warp-aggregated (CAS, acquire / release)";
    case Variant::combining: return "combining lock (flat combining)";
    case Variant::ttas: return "test-and-test-and-set (acquire / release)";
    case Variant::ttas_same_line: return "test-and-test-and-set, counter in the lock's line";
  }
  return "";
}

// The benchmark's names: the same kernels, named as locks.
const char* bench_name(Variant v) {
  switch (v) {
    case Variant::book: return "the book's lock, no fence (not a correct lock)";
    case Variant::fenced: return "CAS lock (atomicCAS, __threadfence, atomicExch)";
    case Variant::acq_rel: return "CAS, acquire / release (cuda::atomic_ref)";
    default: return variant_name(v);
  }
}

const char* kernel_name(Variant v) {
  switch (v) {
    case Variant::book: return "book_kernel";
    case Variant::book_atomic_add: return "book_atomic_add_kernel";
    case Variant::lock_functions: return "lock_functions_kernel";
    case Variant::fenced: return "fenced_kernel";
    case Variant::acq_rel: return "acq_rel_kernel";
    case Variant::thread_lock: return "thread_lock_kernel";
    case Variant::backoff: return "backoff_kernel";
    case Variant::ticket: return "ticket_kernel";
    case Variant::warp_aggregated: return "warp_aggregated_kernel";
    case Variant::combining: return "combining_kernel";
    case Variant::ttas:
    case Variant::ttas_same_line: return "ttas_kernel";
  }
  return "";
}

std::string grid_text(int blocks, int threads) {
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

double ns_per_acquisition(const LockRun& r) {
  return r.expected > 0 ? r.ms * 1e6 / static_cast<double>(r.expected) : 0.0;
}

std::vector<std::string> lesson_sass(const KernelListing& listing, const std::string& arch, const std::string& name) {
  for (const auto& k : listing.sass)
    if (k.arch == arch && is_lesson_kernel(k.function) && short_kernel_name(k.function) == name) return k.instructions;
  return {};
}

// ---------------------------------------------------------------------------------------------

Section setup_section(const Setup& s) {
  Section sec;
  sec.id = "setup";
  sec.title = "setup: the spin lock of CUDA by Example (seed 001) and its four pitfalls";
  sec.paragraphs.push_back(
      "The most copied GPU lock: a word in global memory, atomicCAS(mutex, 0, 1) until it returns 0 to take it, "
      "atomicExch(mutex, 0) to give it back. The seed wraps it in a class and names four problems: it deadlocks "
      "when the lanes of one warp use it, what it protects can be read stale, passing the class by value frees "
      "the mutex, and a \"true thread lock\" written inline avoids the deadlock. Each part below runs the seed's "
      "code, says what actually happens and why, and checks it.");
  sec.facts.push_back({"backend", s.gpu ? s.device : std::string("reference model"), "",
                       s.gpu ? "" : "no GPU: the model's answers, and 'needs a GPU' where only a GPU can answer"});
  std::string parts;
  for (const auto& p : s.parts) parts += (parts.empty() ? "" : ", ") + p;
  sec.facts.push_back({"parts (--part)", parts, "", ""});
  std::string regimes;
  for (Regime r : s.regimes) regimes += (regimes.empty() ? "" : ", ") + std::string(to_string(r));
  sec.facts.push_back({"model traces (--model)", regimes, "", "warp scheduling of the step-by-step traces"});
  sec.facts.push_back({"deadline of every wait", fixed(static_cast<double>(kDefaultDeadlineNs) / 1e9, 0) + " s", "",
                       "up to " + fixed(static_cast<double>(kMaxDeadlineNs) / 1e9, 0) +
                           " s for big launches; a thread that waits longer gives up, and the run names its block"});
  return sec;
}

Section lock_class_section(const ClassPart& p, bool gpu_run) {
  Section s;
  s.id = "lock_class";
  s.title = "part 1, the lock class: CudaKernelLock used as kernel" + grid_text(p.spec.blocks, 1);
  s.paragraphs.push_back(
      "The seed's class as written: lock() is while (atomicCAS(mutex, 0, 1) != 0); and unlock() is "
      "atomicExch(mutex, 0). atomicCAS compares and swaps in one atomic step at L2, so exactly one thread sees 0 "
      "and gets in; the others keep trying. The kernel runs one thread per block, the seed's rule (part 2 shows "
      "why it was the rule), each taking the lock " +
      std::to_string(p.spec.iters) + " times around the critical section of the seed's later kernel, "
      "atomicAdd(cnt, 1): the count says whether every acquisition happened, and the time per handoff what one "
      "costs.");
  s.paragraphs.push_back(
      "The seed's first kernel has *cnt = *cnt + 1 inside the lock instead. The same launches with that critical "
      "section show the seed's second pitfall at once; part 3 takes it apart.");
  s.facts.push_back({"launch", grid_text(p.spec.blocks, 1) + ", " + std::to_string(p.spec.iters) + " acquisitions per thread",
                     "", std::to_string(p.spec.acquisitions()) + " lock handoffs per launch"});
  s.facts.push_back({"reference model, atomicAdd", model_outcome_text(p.model), "",
                     std::to_string(p.model.config.blocks) + " blocks x " + std::to_string(p.model.config.iters) +
                         " acquisitions, one instruction per thread per step"});
  s.facts.push_back({"reference model, *cnt = *cnt + 1", model_outcome_text(p.model_plain), "",
                     std::to_string(p.model_plain.stale_reads) +
                         (p.model_plain.stale_reads == 1 ? " load" : " loads") + " returned an old value from an SM's L1"});
  if (!gpu_run) {
    s.facts.push_back({"verdict", std::string("the lock itself completes in the model; the counts on a real GPU and "
                                              "the time per handoff need a GPU"),
                       "", ""});
    s.measurements.push_back(per_acquisition("time per lock handoff, " + grid_text(p.spec.blocks, 1) + ", atomicAdd", {},
                                             false, "launch time / handoffs, CUDA events"));
    return s;
  }
  const auto counts = [](const std::vector<LockRun>& runs) {
    std::string t;
    for (const auto& r : runs) t += (t.empty() ? "" : ", ") + std::to_string(r.count);
    return t;
  };
  s.facts.push_back({"count after each launch, atomicAdd", counts(p.gpu), "",
                     "expected " + std::to_string(p.spec.acquisitions())});
  if (!p.gpu_plain.empty()) {
    long long lost = 0, total = 0;
    for (const auto& r : p.gpu_plain) {
      lost += r.lost();
      total += r.expected;
    }
    s.facts.push_back({"count after each launch, *cnt = *cnt + 1", counts(p.gpu_plain), "",
                       std::to_string(lost) + " of " + std::to_string(total) + " updates lost (" +
                           fixed(100.0 * static_cast<double>(lost) / static_cast<double>(std::max(total, 1LL)), 1) +
                           "%): part 3"});
  }
  s.measurements.push_back(per_acquisition("time per lock handoff, " + grid_text(p.spec.blocks, 1) + ", atomicAdd", p.gpu,
                                           true, "launch time / handoffs, CUDA events"));
  s.checks.push_back(exact_check("every acquisition happened: the atomicAdd count is exact in every launch", p.gpu));
  bool plain_stuck = false;
  for (const auto& r : p.gpu_plain) plain_stuck = plain_stuck || r.timed_out();
  if (plain_stuck)
    s.checks.push_back({"*cnt = *cnt + 1: every wait within its deadline", false,
                        "a thread gave up: the count says nothing about stale reads"});
  bool exact = !p.gpu.empty();
  for (const auto& r : p.gpu) exact = exact && r.exact();
  s.facts.push_back({"verdict",
                     exact ? std::string("the lock excludes: with atomicAdd every count is exact; with the seed's "
                                         "*cnt = *cnt + 1 the counts are wrong (part 3)")
                           : std::string("an acquisition went missing: see the check"),
                     "", ""});
  return s;
}

Section warp_deadlock_section(const WarpPart& p, bool gpu_run) {
  Section s;
  s.id = "warp_deadlock";
  s.title = "part 2, warp deadlock: lock() and unlock() called by every lane of a warp";
  s.paragraphs.push_back(
      "The seed says the class only works as kernel<<<N, 1>>>: with <<<1, 128>>> the lanes of a warp execute in "
      "lockstep, the lane that gets the lock cannot leave lock() until the others leave it too, and they wait for "
      "it. That was true before Volta: a warp had one program counter, and at a divergent branch it ran one side "
      "until both sides met again (the reconvergence point). In the spin loop the lane that got the lock has left "
      "the loop and waits at its exit; the others loop forever, waiting for a lock that lane will never release.");
  s.paragraphs.push_back(
      "Since Volta (compute capability 7.0) every thread has its own program counter and the scheduler may run "
      "any of them (independent thread scheduling). NVIDIA's Volta whitepaper describes exactly this case: a "
      "thread that waits for a lock held by a thread of its own warp no longer keeps that thread from making "
      "progress (\"starvation-free algorithms\"). CUDA 13 no longer builds for compute_60 (its oldest target is "
      "7.5), so the old behaviour cannot be run; the reference model runs it instead, lane by lane.");
  LaneTable t;
  t.id = "side_by_side";
  t.title = "the same lock() / unlock(): this GPU beside the model's two schedulers";
  t.columns = {{"launch", "launch", ""}, {"gpu", "this GPU", ""}, {"lockstep", "model, lockstep", ""},
               {"independent", "model, independent", ""}};
  for (const auto& c : p.cases) {
    std::string gpu = "needs a GPU";
    RowMark mark = RowMark::none;
    if (c.gpu) {
      gpu = c.gpu->timed_out() ? "stuck: " + stuck_text(*c.gpu)
                               : "completes: count " + count_text(c.gpu->count, c.gpu->expected) + ", " +
                                     fixed(c.gpu->ms, 3) + " ms";
      if (!c.gpu->exact()) mark = RowMark::mismatch;
    }
    t.add_row({grid_text(c.spec.blocks, c.spec.threads) + " x " + std::to_string(c.spec.iters), gpu,
               model_outcome_text(c.lockstep), model_outcome_text(c.independent)},
              mark);
  }
  t.legend.push_back("the model runs one acquisition per lane; the GPU " + std::to_string(p.cases.empty() ? 0 : p.cases.front().spec.iters) +
                     " per lane, with a deadline on every wait");
  s.tables.push_back(std::move(t));
  s.tables.push_back(program_table(Protocol::lock_functions, "program"));
  for (const auto& tr : p.traces) {
    const std::string id = std::string("trace_") + to_string(tr.config.regime);
    s.tables.push_back(trace_table(tr, id,
                                   "trace, " + regime_title(tr.config.regime) + ": " + std::to_string(tr.config.threads) +
                                       " lanes of one warp, one acquisition each",
                                   false));
    if (tr.config.regime == Regime::lockstep && tr.outcome == Outcome::deadlock) {
      s.tables.back().legend.push_back("waits at N: the lane is not running; its warp resumes it at pc N");
      s.facts.push_back({"lockstep: who waits for whom", tr.holder, "", tr.spinners});
    }
  }
  if (!p.sass_note.empty()) s.notes.push_back(p.sass_note);
  // Checks: the model, then the GPU against it.
  for (const auto& c : p.cases) {
    const std::string g = grid_text(c.spec.blocks, c.spec.threads);
    s.checks.push_back({"reference model, lockstep: " + g + " deadlocks", c.lockstep.outcome == Outcome::deadlock,
                        c.lockstep.holder.empty() ? model_outcome_text(c.lockstep) : c.lockstep.holder});
    s.checks.push_back({"reference model, independent: " + g + " completes with an exact count", c.independent.exact(),
                        model_outcome_text(c.independent)});
    if (c.gpu)
      s.checks.push_back(report::model_agreement(g + " completes with an exact count, as under independent scheduling",
                                   c.gpu->exact() && c.independent.exact(),
                                   c.gpu->timed_out() ? stuck_text(*c.gpu)
                                                      : "count " + count_text(c.gpu->count, c.gpu->expected)));
  }
  if (gpu_run) {
    s.facts.push_back({"verdict",
                       std::string("on this GPU every lane got the lock: the deadlock of the seed is the pre-Volta "
                                   "one, which only the model can still show"),
                       "", ""});
  } else {
    s.facts.push_back({"verdict", std::string("lockstep deadlocks, independent completes; what this GPU does needs a GPU"),
                       "", ""});
  }
  return s;
}

Section stale_reads_section(const StalePart& p, bool gpu_run) {
  Section s;
  s.id = "stale_reads";
  s.title = "part 3, stale reads: *cnt = *cnt + 1 under the lock, with no fence";
  s.paragraphs.push_back(
      "The seed says a plain read inside the lock may see an old value written by another block, and offers three "
      "fixes: a delay, atomicAdd, and __threadfence() in lock() and unlock(). The PTX ISA says why: global memory "
      "is coherent in L2, but the L1 caches of different SMs are not, and a plain load (ld.global, cached at all "
      "levels by default) may be served by this SM's L1. atomicCAS and atomicExch are relaxed: they order nothing "
      "else. So after taking the lock a block can read the counter from the line its own L1 kept from its last "
      "critical section, add one to that, and overwrite the updates of every block in between. Alglave et al. "
      "(ASPLOS 2015) found this lock letting stale values through on real GPUs, which led to the book's erratum "
      "adding __threadfence().");
  s.paragraphs.push_back(
      "Each variant runs " + (p.runs == 1 ? std::string("once") : std::to_string(p.runs) + " times") + " as " +
      grid_text(p.spec.blocks, 1) + " x " + std::to_string(p.spec.iters) +
      " acquisitions; lost updates = expected count - final count. No delay can help: the old line in L1 does not "
      "get newer by waiting. The fixes: atomicAdd does the update in L2; __threadfence() compiles to a fence that "
      "also drops this SM's L1 (CCTL.IVALL in the SASS); the third is the modern one the seed does not have, "
      "cuda::atomic_ref with acquire when taking the lock and release when giving it back.");
  LaneTable t;
  t.id = "variants";
  t.title = "lost updates per variant";
  t.columns = {{"variant", "variant", ""},
               {"lost", "lost updates (gpu)", ""},
               {"runs_losing", "runs that lost", ""},
               {"ns", "ns per handoff (gpu, median)", ""},
               {"model", "model: 2 blocks x 2", ""},
               {"compiled", "fences / cache ops" + (p.arch.empty() ? std::string() : " (" + p.arch + ")"), ""}};
  const auto is_fix = [](Variant v) {
    return v == Variant::book_atomic_add || v == Variant::fenced || v == Variant::acq_rel;
  };
  for (const auto& row : p.rows) {
    std::vector<Value> v{std::string(variant_name(row.variant))};
    RowMark mark = RowMark::none;
    if (gpu_run && !row.gpu.empty()) {
      long long lost = 0, total = 0;
      int losing = 0;
      bool stuck = false;
      std::vector<double> ns;
      for (const auto& r : row.gpu) {
        lost += r.lost();
        total += r.expected;
        losing += r.lost() != 0 ? 1 : 0;
        stuck = stuck || r.timed_out();
        ns.push_back(ns_per_acquisition(r));
      }
      v.push_back(stuck ? std::string("stuck: a wait passed its deadline")
                        : std::to_string(lost) + " of " + std::to_string(total) + " (" +
                              fixed(100.0 * static_cast<double>(lost) / static_cast<double>(total), 2) + "%)");
      v.push_back(std::to_string(losing) + " of " + std::to_string(row.gpu.size()));
      v.push_back(fixed(report::median(ns), 1));
      if (is_fix(row.variant) && (lost != 0 || stuck)) mark = RowMark::mismatch;
    } else {
      v.push_back(Undefined{});
      v.push_back(Undefined{});
      v.push_back(Undefined{});
    }
    v.push_back(count_text(row.model.count, row.model.expected) +
                (row.model.stale_reads ? ", " + std::to_string(row.model.stale_reads) + " stale" : ""));
    std::string ops;
    for (const auto& i : row.compiled) {
      const std::string op = i.substr(0, i.find(' '));
      if (ops.find(op) == std::string::npos) ops += (ops.empty() ? "" : " ") + op;
    }
    v.push_back(!p.arch.empty() ? Value{ops.empty() ? std::string("none") : ops} : Value{Undefined{}});
    t.add_row(std::move(v), mark);
  }
  if (!gpu_run) t.legend.push_back("gpu columns: needs a GPU");
  t.legend.push_back("model: the counter at the end of its run, and how many loads returned an old value");
  if (!p.arch.empty())
    t.legend.push_back("MEMBAR: a fence; CCTL.IVALL: invalidate this SM's L1 (what makes the next load go to L2); "
                       "none: no fence, no invalidation (this build's SASS)");
  s.tables.push_back(std::move(t));
  s.tables.push_back(program_table(Protocol::book, "program"));
  s.tables.push_back(trace_table(p.trace, "trace",
                                 "trace of the model, the seed's code: 2 blocks on 2 SMs, one instruction each per step",
                                 true));
  if (!p.trace.first_stale.empty())
    s.facts.push_back({"reference model: how an update is lost", p.trace.first_stale, "",
                       "the store that follows writes that old value + 1 over the newer one"});
  for (const auto& row : p.rows) {
    if (is_fix(row.variant)) {
      s.checks.push_back({std::string("reference model: ") + variant_name(row.variant) + " loses nothing",
                          row.model.exact() && row.model.stale_reads == 0, model_outcome_text(row.model)});
      if (gpu_run)
        s.checks.push_back(exact_check(std::string("GPU agrees with the reference model: ") + variant_name(row.variant) +
                                           ": every count exact",
                                       row.gpu));
    } else if (gpu_run) {
      bool stuck = false;
      for (const auto& r : row.gpu) stuck = stuck || r.timed_out();
      if (stuck)
        s.checks.push_back({std::string(variant_name(row.variant)) + ": every wait within its deadline", false,
                            "a thread gave up: the count says nothing about stale reads"});
    }
  }
  if (gpu_run) {
    long long seed_lost = 0, seed_total = 0;
    for (const auto& row : p.rows)
      if (row.variant == Variant::book)
        for (const auto& r : row.gpu) {
          seed_lost += r.lost();
          seed_total += r.expected;
        }
    const std::string verdict =
        seed_lost > 0 ? "the seed's code lost " + std::to_string(seed_lost) + " of " + std::to_string(seed_total) +
                            " updates on this GPU; each fix made every count exact"
                      : "the seed's code lost no update on this GPU in these runs (its L1 served no old line); the "
                        "fixes are still what the memory model requires";
    s.facts.push_back({"verdict", verdict, "", ""});
  } else {
    s.facts.push_back({"verdict", std::string("the model shows how an L1 line kept from the last critical section "
                                              "loses updates, and that each fix prevents it; the counts need a GPU"),
                       "", ""});
  }
  return s;
}

Section copy_destructor_section(const CopyPart& p, bool gpu_run) {
  Section s;
  s.id = "copy_destructor";
  s.title = "part 4, copy and destructor: the lock class passed by value";
  s.paragraphs.push_back(
      "The seed's callKernel() creates one CudaKernelLock and passes it by value to two launches; its destructor "
      "calls cudaFree(mutex). The seed says the kernel's copy is destroyed \"when the kernel exits\". What the CUDA "
      "C++ Programming Guide says (\"__global__ Function Argument Processing\"): the launch copies the argument "
      "into compiler-generated stub functions one or more times and memcpy's its bytes to the kernel, and a "
      "non-trivial destructor may run in host code, as the stubs return, even before the kernel has finished. So "
      "the first launch statement already frees the mutex, and every later copy frees it again.");
  s.paragraphs.push_back(
      "A freed pointer handed to a kernel can fault, and a fault leaves a CUDA context unusable. So this part runs "
      "in a child process (this binary, started with a hidden option); the parent waits for it with a timeout and "
      "then runs the seed's two fixes and an owner whose copy is deleted, in its own, healthy context.");
  if (!gpu_run) {
    s.notes.push_back("what the destructors and CUDA do needs a GPU; the text above is what the CUDA guide says");
    s.facts.push_back({"an owner that cannot be copied",
                       std::string("MutexOwner: copy constructor deleted, move allowed; kernels take MutexRef, a plain "
                                   "pointer (static_assert'ed when the kernels compile)"),
                       "", "kernel<<<g, b>>>(owner) does not compile"});
    return s;
  }
  if (p.child) {
    const CopyOutcome& c = *p.child;
    if (c.status == CopyOutcome::Status::ok) {
      LaneTable t;
      t.id = "child";
      t.title = "the child process: the seed's callKernel(), step by step (" + grid_text(kCopyBlocks, 1) + " x " +
                std::to_string(kCopyIters) + ")";
      t.columns = {{"step", "step", ""}, {"cuda", "CUDA answered", ""}, {"what", "what happened", ""}};
      for (const auto& st : c.seen.steps)
        t.add_row({st.what, st.error.empty() ? Value{Undefined{}} : Value{st.error}, st.detail});
      s.tables.push_back(std::move(t));
      s.facts.push_back({"~CudaKernelLock() calls for one object", static_cast<I>(c.seen.destructor_calls), "",
                         std::to_string(c.seen.frees_ok) + " cudaFree succeeded, " + std::to_string(c.seen.frees_failed) +
                             " failed"});
      for (const auto& st : c.seen.steps)
        if (st.what.rfind("launch 2", 0) == 0)
          s.facts.push_back({"the seed's cudaGetLastError() after launch 2", st.error, "",
                             st.error.rfind("cudaSuccess", 0) == 0
                                 ? "no error"
                                 : "the error of the destructor's cudaFree, not of the launch: cudaGetLastError "
                                   "returns the last error of any runtime call"});
      s.facts.push_back({"child process", fixed(c.seconds, 2) + " s", "", "CUDA start-up included"});
      s.checks.push_back({"nothing hung: the child process answered", true,
                          "first launch: count " + count_text(c.seen.count1, c.seen.expected)});
      s.checks.push_back({"the by-value launch freed the mutex while lock_ still used it",
                          c.seen.frees_ok >= 1 && c.seen.destructor_calls >= 2,
                          std::to_string(c.seen.destructor_calls) + " destructor calls for one lock_ object"});
    } else if (c.status == CopyOutcome::Status::cuda_error) {
      s.checks.push_back({"nothing hung: the child process answered", true, "the child stopped at: " + c.message});
    } else {
      s.checks.push_back({"nothing hung: the child process answered", false, c.message});
    }
  }
  if (!p.fixes_error.empty()) {
    s.checks.push_back({"this process still runs kernels after the child", false, p.fixes_error});
    return s;
  }
  LaneTable f;
  f.id = "fixes";
  f.title = "the fixes, in this process after the child: two launches each (" + grid_text(kCopyBlocks, 1) + " x " +
            std::to_string(kCopyIters) + ")";
  f.columns = {{"fix", "fix", ""}, {"count1", "launch 1", ""}, {"count2", "launch 2", ""},
               {"frees", "cudaFree(mutex) calls", ""}, {"copies", "copies made by the launches", ""}};
  for (const auto& x : p.fixes)
    f.add_row({x.name, static_cast<I>(x.count1), static_cast<I>(x.count2),
               std::to_string(x.frees) + (x.frees_failed ? " (" + std::to_string(x.frees_failed) + " failed)" : ""),
               x.copies_made ? Value{static_cast<I>(x.copies_made)} : Value{Undefined{}}},
              x.ok() ? RowMark::none : RowMark::mismatch);
  f.legend.push_back("copies: shared_ptr copies made by the launch statements (each adds to use_count and takes "
                     "it back; only the last owner frees)");
  s.tables.push_back(std::move(f));
  bool all = !p.fixes.empty();
  for (const auto& x : p.fixes) {
    all = all && x.ok();
    s.checks.push_back({x.name + ": both launches exact, the mutex freed once", x.ok(),
                        "counts " + std::to_string(x.count1) + ", " + std::to_string(x.count2) + " of " +
                            std::to_string(x.expected) + "; " + std::to_string(x.frees) + " cudaFree"});
  }
  s.checks.push_back({"this process still runs kernels after the child", all,
                      all ? "every fix's launches completed in this process's context" : "a fix failed"});
  s.facts.push_back({"an owner that cannot be copied",
                     std::string("MutexOwner: copy constructor deleted, move allowed; kernels take MutexRef, a plain "
                                 "pointer (static_assert'ed when the kernels compile)"),
                     "", "kernel<<<g, b>>>(owner) does not compile"});
  s.facts.push_back({"verdict",
                     std::string("passing the owner by value is the bug; pass a view that owns nothing, and let one "
                                 "owner that cannot be copied free the mutex once"),
                     "", ""});
  return s;
}

Section thread_lock_section(const ThreadLockPart& p, bool gpu_run) {
  Section s;
  s.id = "thread_lock";
  s.title = "part 5, the \"true thread lock\": acquire, work and release in one loop iteration, " +
            grid_text(p.spec.blocks, p.spec.threads);
  s.paragraphs.push_back(
      "The seed's way out: no lock() function; inside while (blocked) each thread tries atomicCAS once, and the "
      "thread that gets the lock does its work (atomicAdd, __threadfence) and releases it in the same iteration. "
      "No lane ever holds the lock while it waits for the rest of its warp, so even a lockstep warp makes "
      "progress: the model shows it. On this GPU it runs as " +
      grid_text(p.spec.blocks, p.spec.threads) + ", every thread acquiring " + std::to_string(p.spec.iters) + " times.");
  s.facts.push_back({"reference model, one warp of 32", "lockstep: " + model_outcome_text(p.lockstep), "",
                     "independent: " + model_outcome_text(p.independent)});
  s.checks.push_back({"reference model, lockstep: the inline loop completes", p.lockstep.exact(),
                      model_outcome_text(p.lockstep)});
  s.checks.push_back({"reference model, independent: the inline loop completes", p.independent.exact(),
                      model_outcome_text(p.independent)});
  s.tables.push_back(program_table(Protocol::thread_lock, "program"));
  for (const auto& tr : p.traces)
    s.tables.push_back(trace_table(tr, std::string("trace_") + to_string(tr.config.regime),
                                   "trace, " + regime_title(tr.config.regime) + ": " + std::to_string(tr.config.threads) +
                                       " lanes, one acquisition each",
                                   false));
  s.measurements.push_back(per_acquisition("time per acquisition, " + grid_text(p.spec.blocks, p.spec.threads), p.gpu,
                                           gpu_run, "launch time / acquisitions, CUDA events"));
  if (gpu_run) {
    s.checks.push_back(exact_check("GPU agrees with the reference model: every count exact, no thread stuck", p.gpu));
    s.facts.push_back({"verdict",
                       std::string("no deadlock and an exact count; but one lock for " +
                                   std::to_string(p.spec.threads_total()) +
                                   " threads serializes them all: --bench shows what a lock costs"),
                       "", ""});
  } else {
    s.facts.push_back({"verdict", std::string("completes under both schedulers in the model; counts and times need a GPU"),
                       "", ""});
  }
  return s;
}

Section bench_section(const BenchPart& p, bool gpu_run) {
  Section s;
  s.id = "bench";
  s.title = "bench: contended locks, ns per update by contention";
  s.paragraphs.push_back(
      "Every lock orders its critical section (*cnt = *cnt + 1, read and written plainly) with its taking and "
      "releasing, and every count is checked. The CAS lock is the seed's fixed class: atomicCAS, __threadfence() "
      "after taking and before releasing, atomicExch. ns per update = launch time (CUDA events) / updates; each "
      "cell is the median of " +
      std::to_string(p.reps) + " launches after a warm-up; x CAS divides by the CAS lock's median at the same "
      "contention in the same run. The book's lock without fences is shown for reference only: it is fast because "
      "its critical section reads a line kept in L1, which is also why it loses updates (part 3).");
  s.paragraphs.push_back(
      "CAS, acquire / release orders exactly what a lock needs (cuda::atomic_ref: compare_exchange with acquire, "
      "store with release) instead of two full fences. CAS + back-off sleeps (__nanosleep) twice as long after each "
      "failed try, so fewer compare-and-swaps queue at the lock's L2 slice. The ticket lock hands out numbers with "
      "one atomicAdd and serves them in order; a waiter polls with acquire loads and sleeps in proportion to how "
      "many tickets are ahead of it. Warp-aggregated: the lanes of a warp that arrive together elect one lane, "
      "which takes the lock (acquire / release) once and makes the warp's updates in one critical section.");
  s.paragraphs.push_back(
      "Test-and-test-and-set waits with plain relaxed loads and tries compare_exchange (acquire) only when the word "
      "reads 0, so waiters do not queue atomics in front of the release; its second row keeps the counter in the "
      "lock word's 128-byte line instead of a line of its own. The combining lock (part 6) is the one lock here "
      "whose handoff is not one critical section: each thread publishes a fetch-and-add request in its own slot, "
      "and whoever takes the lock serves every published request. Its row is ns per critical section, with every "
      "count exact and the answers 0..n-1 each returned once.");
  const auto config_text = [](const BenchConfig& c) { return grid_text(c.blocks, c.threads); };
  std::map<std::pair<int, int>, double> cas_median;  // by (blocks, threads)
  const auto median_ns = [](const BenchCell& c) {
    std::vector<double> v;
    for (const auto& r : c.gpu) v.push_back(ns_per_acquisition(r));
    return report::median(v);
  };
  for (const auto& c : p.cells)
    if (c.variant == Variant::fenced && !c.gpu.empty()) cas_median[{c.config.blocks, c.config.threads}] = median_ns(c);
  LaneTable ns, ratio;
  ns.id = "ns_per_update";
  ns.title = "ns per update, median";
  ratio.id = "vs_cas";
  ratio.title = "x CAS lock (median over the CAS lock's median, same contention)";
  for (LaneTable* t : {&ns, &ratio}) {
    t->columns = {{"lock", "lock", ""}};
    for (const auto& c : p.configs)
      t->columns.push_back({"b" + std::to_string(c.blocks) + "_t" + std::to_string(c.threads), config_text(c), ""});
  }
  struct Best {
    double ratio = 0.0, ns = 0.0;
    std::string name;
  };
  std::map<std::pair<int, int>, Best> best;
  for (Variant v : p.locks) {
    std::vector<Value> a{std::string(bench_name(v))}, b{std::string(bench_name(v))};
    std::vector<std::string> bad;
    std::map<std::pair<int, int>, long long> handoffs, sections;  // combining: over every launch
    bool measured = false;
    for (const auto& cfg : p.configs) {
      const BenchCell* cell = nullptr;
      for (const auto& c : p.cells)
        if (c.variant == v && c.config.blocks == cfg.blocks && c.config.threads == cfg.threads) cell = &c;
      if (!cell || cell->gpu.empty()) {
        a.push_back(Undefined{});
        b.push_back(Undefined{});
      } else {
        measured = true;
        const double m = median_ns(*cell);
        a.push_back(m);
        const auto it = cas_median.find({cfg.blocks, cfg.threads});
        const double q = it != cas_median.end() && it->second > 0 ? m / it->second : 0.0;
        b.push_back(q > 0 ? Value{q} : Value{Undefined{}});
        if (v != Variant::fenced && v != Variant::book && q > 0) {
          Best& bb = best[{cfg.blocks, cfg.threads}];
          if (bb.name.empty() || q < bb.ratio) bb = {q, m, bench_name(v)};
        }
        for (std::size_t i = 0; i < cell->gpu.size(); ++i) {
          const LockRun& r = cell->gpu[i];
          if (r.timed_out()) bad.push_back(config_text(cfg) + ": " + stuck_text(r));
          else if (r.count != r.expected) bad.push_back(config_text(cfg) + ": count " + count_text(r.count, r.expected));
          else if (r.answers_bad > 0) bad.push_back(config_text(cfg) + ": " + r.first_bad_answer);
          handoffs[{cfg.blocks, cfg.threads}] += r.handoffs;
          sections[{cfg.blocks, cfg.threads}] += r.expected;
        }
      }
      std::vector<double> samples;
      if (cell)
        for (const auto& r : cell->gpu) samples.push_back(ns_per_acquisition(r));
      s.measurements.push_back(
          report::measured(std::string(bench_name(v)) + ", " + config_text(cfg), "ns", std::move(samples), gpu_run, ""));
    }
    ns.add_row(std::move(a));
    ratio.add_row(std::move(b));
    if (measured) {
      if (v == Variant::book)
        s.notes.push_back("the book's lock: " + (bad.empty() ? std::string("every count exact in these runs (not a "
                                                                           "promise: see part 3)")
                                                             : "not exact: " + bad.front()));
      else if (v == Variant::combining)
        s.checks.push_back({std::string(bench_name(v)) + ": every count exact and every answer 0..n-1 returned once, "
                                                         "at every contention level",
                            bad.empty(), bad.empty() ? "every launch completed with its exact count and answers" : bad.front()});
      else
        s.checks.push_back({std::string(bench_name(v)) + ": every count exact at every contention level",
                            bad.empty(), bad.empty() ? "every launch completed with its exact count" : bad.front()});
    }
    if (v == Variant::combining) {
      std::string per;
      for (const auto& cfg : p.configs) {
        const auto h = handoffs.find({cfg.blocks, cfg.threads});
        if (h == handoffs.end() || h->second <= 0) continue;
        per += (per.empty() ? "" : ", ") + config_text(cfg) + " " +
               fixed(static_cast<double>(sections[{cfg.blocks, cfg.threads}]) / static_cast<double>(h->second), 1);
      }
      if (!per.empty())
        s.notes.push_back("combining lock, critical sections per lock handoff (every launch): " + per);
    }
  }
  if (!gpu_run) {
    ns.legend.push_back("every cell needs a GPU");
    ratio.legend.push_back("every cell needs a GPU");
  }
  ns.legend.push_back("update: one thread's *cnt += 1 under the lock (for the combining lock, one fetch-and-add "
                      "request served); for the single-thread locks one update is one lock handoff, for "
                      "warp-aggregated one handoff carries the warp's updates, for combining every request "
                      "published when the holder reads the slots");
  s.tables.push_back(std::move(ns));
  s.tables.push_back(std::move(ratio));
  for (const auto& cfg : p.configs) {
    const auto it = best.find({cfg.blocks, cfg.threads});
    if (it == best.end() || (cfg.blocks != 132)) continue;
    s.facts.push_back({"best lock at " + config_text(cfg), it->second.name, "",
                       fixed(it->second.ns, 1) + " ns per update, " + fixed(it->second.ratio, 3) +
                           " x CAS (medians of " + std::to_string(p.reps) + " launches, this run)" +
                           std::string(it->second.ratio <= 0.5 ? "; target <= 0.5: met" : "; target <= 0.5: not met")});
  }
  // Latency or contention: the CAS lock alone (1 x 1) beside 132 contending blocks.
  const auto one = cas_median.find({1, 1}), many = cas_median.find({132, 1});
  if (one != cas_median.end() && many != cas_median.end() && many->second > 0 && one->second >= 0.8 * many->second)
    s.notes.push_back("the CAS lock costs " + fixed(one->second, 0) + " ns per acquisition with one thread alone and " +
                      fixed(many->second, 0) + " ns per handoff among 132 blocks: at one thread per block the cost is "
                      "the latency of take, critical section and release, not contention, so back-off and tickets "
                      "gain little there; lighter ordering does a little, and running many critical sections per "
                      "handoff (warp aggregation with many threads per block, combining at any shape) does most");
  // The model: which locks survive lockstep.
  if (!p.verdicts.empty()) {
    LaneTable v;
    v.id = "schedulers";
    v.title = "reference model: each lock written as lock(); ...; unlock(); by every lane of one warp";
    v.columns = {{"lock", "lock", ""}, {"lockstep", "lockstep (pre-Volta)", ""}, {"independent", "independent", ""}};
    for (std::size_t i = 0; i + 1 < p.verdicts.size(); i += 2)
      v.add_row({program_of(p.verdicts[i].config.protocol).name, model_outcome_text(p.verdicts[i]),
                 model_outcome_text(p.verdicts[i + 1])});
    v.legend.push_back("4 lanes, one acquisition each; only the warp-aggregated lock, where one lane spins for the "
                       "warp, and the combining lock, whose holder serves its warp and releases before the warp "
                       "reconverges, survive lockstep");

    s.tables.push_back(std::move(v));
  }
  return s;
}

}  // namespace cudasync::lock
