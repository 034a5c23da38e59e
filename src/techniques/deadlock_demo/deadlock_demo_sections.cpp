// The setup section and the two grid scenarios (grid-oversubscribed, producer-before-consumer).
#include "techniques/deadlock_demo/deadlock_demo_sections.hpp"

#include "techniques/deadlock_demo/deadlock_demo_section_util.hpp"

namespace cudasync::deadlock_demo {

using namespace detail;  // NOLINT: this file's own helpers
using report::Check;
using report::Section;

namespace {

std::string grid_text(int blocks, int threads) {
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

}  // namespace

Section setup_section(const Setup& s) {
  Section sec;
  sec.id = "setup";
  sec.title = "setup: six GPU deadlocks, each run for real under a deadline";
  sec.paragraphs.push_back(
      "A kernel that truly hangs takes the terminal with it, and a GPU context can be left unusable. So every "
      "wait in these kernels has a deadline on %globaltimer: a block or lane that waits too long gives up and "
      "records on what it waited and the value it last saw. The grid scenarios share one end time (the first "
      "block's start + the deadline), so blocks that start only after it know at once that they came late. The "
      "two scenarios that misuse a hardware barrier, which has no deadline, run in a child process of this "
      "binary, where the waiting threads rescue the barrier after the deadline. After every scenario a small "
      "kernel runs and its result is checked: the GPU is still usable.");
  sec.facts.push_back({"backend", s.gpu ? s.device : std::string("reference model"), "",
                       s.gpu ? "" : "no GPU: the model's schedules and predictions; what the GPU does needs a GPU"});
  std::string names;
  for (Scenario sc : s.scenarios) names += (names.empty() ? "" : ", ") + std::string(scenario_name(sc));
  sec.facts.push_back({"scenarios (--scenario)", names, "", ""});
  sec.facts.push_back({"deadline (--deadline-ms)", std::to_string(s.deadline_ms) + " ms", "",
                       "how long a waiter waits before it gives up; 1.." + std::to_string(kMaxDeadlineMs)});
  if (s.blocks) sec.facts.push_back({"blocks (--blocks)", static_cast<std::int64_t>(*s.blocks), "", ""});
  std::string regimes;
  for (auto r : s.regimes) regimes += (regimes.empty() ? "" : ", ") + std::string(simt::to_string(r));
  if (!regimes.empty())
    sec.facts.push_back({"model traces (--model)", regimes, "", "warp scheduling of warp-spinlock's step-by-step trace"});
  return sec;
}

Section grid_section(const GridPart& p) {
  Section s;
  s.id = "grid_oversubscribed";
  s.title = "grid-oversubscribed: a software grid barrier over more blocks than can be resident";
  s.paragraphs.push_back(
      "A software grid barrier (seed 000's lock-based one): thread 0 of every block adds 1 to a counter in global "
      "memory and spins until the counter reaches the number of blocks. It needs every block resident at once: a "
      "spinning block keeps its SM slot, and a block without a slot starts only when a resident block exits. With "
      "more blocks than fit, the resident blocks spin for blocks that cannot start, and those wait for slots the "
      "spinners will never free. Sorensen et al. (OOPSLA 2016) showed that inter-workgroup barriers need occupancy "
      "discovery: their port of Xiao & Feng's barrier deadlocked on every GPU they tried at 1024 workgroups.");
  s.paragraphs.push_back(
      "Two fixes. Size the grid from the occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs). Or "
      "launch with cudaLaunchCooperativeKernel, which checks co-residency before it starts anything and refuses a "
      "grid that is too large with cudaErrorCooperativeLaunchTooLarge (720) instead of hanging.");
  s.facts.push_back({"launch", grid_text(p.blocks, kGridThreads) + ", counter barrier", "",
                     "deadline " + std::to_string(p.deadline_ms) + " ms, shared by the grid"});
  s.facts.push_back({"resident at once", static_cast<std::int64_t>(p.c.limit()), "", p.c.text()});
  const Describe describe = barrier_describe(p.blocks);
  s.tables.push_back(steps_table(p.model.steps, "schedule", "the model's schedule, step by step"));
  add_model_facts(s, p.model, describe, "block");
  add_model_checks(s, p.model, p.blocks > p.c.limit());
  if (!p.broken) {
    s.facts.push_back({"this GPU", std::string("needs a GPU"), "", "who was stuck, for how long, and the fixes run"});
    s.tables.push_back(steps_table(p.model.fix_steps, "fix", "the fixes, in the model"));
    s.measurements.push_back(launch_time("the oversubscribed launch, until every block returned", std::nullopt, ""));
    return s;
  }
  const GridRun& g = *p.broken;
  s.tables.push_back(ranges_table(g.records, describe, "block", "gpu_blocks", "this GPU: what every block did", true));
  s.facts.push_back({"this GPU: who was stuck", ranges_text(fold(g.records, describe), "block"), "", ""});
  s.facts.push_back({"counter at the end", static_cast<std::int64_t>(g.counter), "", "arrivals of " + std::to_string(p.blocks)});
  s.measurements.push_back(launch_time("the oversubscribed launch, until every block returned", g.ms,
                                       "CUDA events; the first wave spins until the deadline, the rest return at once"));
  if (p.blocks > p.c.limit()) s.checks.push_back(ended_check(g.records, g.timed_out, p.deadline_ms, "block"));
  else
    s.checks.push_back({"the barrier completes when every block fits", g.completed && g.result_ok,
                        g.completed ? g.result : "a block gave up"});
  s.checks.push_back(stuck_agreement(g.records, p.model.records, describe, "block"));
  if (p.fix) {
    const GridRun& f = *p.fix;
    s.facts.push_back({"fix 1: grid from the occupancy API", grid_text(f.blocks, kGridThreads), "",
                       f.completed ? "completed in " + fixed(f.ms, 3) + " ms: " + f.result : "a block gave up"});
    s.checks.push_back({"fix 1: the grid sized from the occupancy API passes the barrier with a correct result",
                        f.completed && f.result_ok, f.completed ? f.result : "a block gave up"});
  }
  if (!p.coop_supported) {
    s.notes.push_back("fix 2 not run: this GPU has no cooperative launch (cudaDevAttrCooperativeLaunch is 0)");
  } else if (p.coop) {
    const CoopRun& c = *p.coop;
    const bool too_large = p.blocks > p.c.limit();
    const std::string what = c.launched
                                 ? "ran: " + (c.run.completed ? c.run.result : std::string("a block gave up"))
                                 : c.error_name + " (" + std::to_string(c.error_code) + "): " + c.error_text;
    s.facts.push_back({"fix 2: cooperative launch", grid_text(p.blocks, kGridThreads) + ": " + what, "",
                       "cudaLaunchCooperativeKernel and a synchronize returned after " + fixed(c.host_ms, 3) + " ms"});
    if (too_large) {
      bool nothing_ran = true;
      for (const auto& r : c.run.records) nothing_ran = nothing_ran && r.state == static_cast<int>(State::never_started);
      s.checks.push_back({"fix 2: cudaLaunchCooperativeKernel refuses the grid with error 720, and nothing runs",
                          !c.launched && c.error_code == 720 && nothing_ran,
                          c.error_name + " (" + std::to_string(c.error_code) + ") after " + fixed(c.host_ms, 3) +
                              " ms; " + (nothing_ran ? "no block ran" : "a block ran")});
    } else {
      s.checks.push_back({"fix 2: the cooperative launch of a grid that fits completes with a correct result",
                          c.launched && c.run.completed && c.run.result_ok, what});
    }
  }
  add_health(s, p.health, "grid-oversubscribed");
  return s;
}

Section chain_section(const ChainPart& p) {
  Section s;
  s.id = "producer_before_consumer";
  s.title = "producer-before-consumer: a block waits for a block with a higher index that has no slot";
  s.paragraphs.push_back(
      "Block b waits for a flag that block b + 1 sets, and the last block sets its flag first: the chain unwinds "
      "from the top (each block adds its value to the one after it, suffix sums). Block 0 thus waits, through the "
      "chain, for the last block. While every block is resident that works. With more blocks than fit, the "
      "lowest indices start first (the hardware's order in practice, not a promise) and spin for blocks that have "
      "no slot: block " + std::to_string(p.c.limit() - 1) + " waits for block " + std::to_string(p.c.limit()) +
      ", which cannot start until a spinning block exits.");
  s.paragraphs.push_back(
      "What is guaranteed: nothing between blocks. The CUDA C++ Programming Guide requires that thread blocks "
      "execute independently: it must be possible to run them in any order, in parallel or in series. It gives no "
      "forward-progress guarantee between blocks, so a block must never wait for a block that may not have "
      "started. Sorensen et al. (OOPSLA 2016) call what GPUs do in practice the occupancy-bound execution model: a "
      "block that has started keeps being scheduled, a block that has not may never start while others wait.");
  s.paragraphs.push_back(
      "The fix: a dynamic block index. Each block takes a ticket with atomicAdd as it starts, and the block with "
      "ticket t waits only for ticket t - 1. That block took its ticket earlier, so it has started and holds a slot "
      "or has finished; no block ever waits for one that has not started, so the wait-for graph has no edge into "
      "the blocks without a slot. What it still relies on: that a started block keeps being scheduled, which the "
      "occupancy-bound model (every NVIDIA GPU) gives and the programming guide does not promise.");
  s.facts.push_back({"launch", grid_text(p.blocks, kGridThreads) + ", flag chain", "",
                     "deadline " + std::to_string(p.deadline_ms) + " ms, shared by the grid"});
  s.facts.push_back({"resident at once", static_cast<std::int64_t>(p.c.limit()), "", p.c.text()});
  const Describe describe = chain_describe();
  s.tables.push_back(steps_table(p.model.steps, "schedule", "the model's schedule, step by step"));
  add_model_facts(s, p.model, describe, "block");
  add_model_checks(s, p.model, p.blocks > p.c.limit());
  s.tables.push_back(steps_table(p.model.fix_steps, "fix", "the fix: a ticket per block"));
  if (!p.broken) {
    s.facts.push_back({"this GPU", std::string("needs a GPU"), "", "who was stuck, and the fix run"});
    s.measurements.push_back(launch_time("the chain launch, until every block returned", std::nullopt, ""));
    return s;
  }
  const GridRun& g = *p.broken;
  s.tables.push_back(ranges_table(g.records, describe, "block", "gpu_blocks", "this GPU: what every block did", true));
  s.facts.push_back({"this GPU: who was stuck", ranges_text(fold(g.records, describe), "block"), "", ""});
  s.measurements.push_back(launch_time("the chain launch, until every block returned", g.ms, "CUDA events"));
  if (p.blocks > p.c.limit()) s.checks.push_back(ended_check(g.records, g.timed_out, p.deadline_ms, "block"));
  else
    s.checks.push_back({"the chain completes when every block fits", g.completed && g.result_ok,
                        g.completed ? g.result : "a block gave up"});
  s.checks.push_back(stuck_agreement(g.records, p.model.records, describe, "block"));
  if (p.fix) {
    const GridRun& f = *p.fix;
    int in_order = 0;  // tickets drawn in hardware-index order: how the hardware started the blocks
    for (std::size_t i = 0; i < f.tickets.size(); ++i) in_order += f.tickets[i] == static_cast<int>(i);
    s.facts.push_back({"fix: tickets", grid_text(f.blocks, kGridThreads), "",
                       f.completed ? "completed in " + fixed(f.ms, 3) + " ms: " + f.result : "a block gave up"});
    s.facts.push_back({"tickets equal to the block index", static_cast<std::int64_t>(in_order), "",
                       "of " + std::to_string(f.blocks) + ": the order in which this GPU started the blocks"});
    s.checks.push_back({"the fix (a ticket per block) completes with a correct result", f.completed && f.result_ok,
                        f.completed ? f.result : "a block gave up"});
  }
  add_health(s, p.health, "producer-before-consumer");
  return s;
}

}  // namespace cudasync::deadlock_demo
