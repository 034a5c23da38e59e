#include "techniques/lock/lock_judge.hpp"

#include <algorithm>

#include "core/report/report.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::lock {

std::string grid_text(int blocks, int threads) {
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

std::string grid_id(int blocks, int threads) { return std::to_string(blocks) + "x" + std::to_string(threads); }

std::string stuck_text(const LockRun& r) {
  return say("judge.stuck", {{"gave-up", r.gave_up},
                             {"blocks", report::list_of(r.stuck_blocks)},
                             {"completed", r.completed},
                             {"expected", r.expected}});
}

std::string count_text(long long count, long long expected) {
  return say(count == expected ? "judge.count-exact" : "judge.count", {{"count", count}, {"expected", expected}});
}

double ns_per_acquisition(const LockRun& r) {
  return r.expected > 0 ? r.ms * 1e6 / static_cast<double>(r.expected) : 0.0;
}

std::vector<double> ns_samples(const std::vector<LockRun>& runs) {
  std::vector<double> ns;
  for (const auto& r : runs)
    if (!r.timed_out()) ns.push_back(ns_per_acquisition(r));
  return ns;
}

bool any_timed_out(const std::vector<LockRun>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const LockRun& r) { return r.timed_out(); });
}

namespace {

// What is wrong with one launch, or "".
std::string problem(const LockRun& r) {
  if (r.timed_out()) return stuck_text(r);
  if (r.count != r.expected) return say("judge.problem-count", {{"count", count_text(r.count, r.expected)}});
  if (r.answers_bad > 0)
    return say("judge.answers-wrong", {{"bad", r.answers_bad}, {"checked", r.answers_checked}, {"first", r.first_bad_answer}});
  return "";
}

}  // namespace

Verdict runs_exact(const std::vector<LockRun>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (const std::string p = problem(runs[i]); !p.empty())
      return {false, say("judge.launch-problem", {{"launch", i + 1}, {"problem", p}})};
  const long long each = runs.empty() ? 0 : runs.front().expected;
  return {!runs.empty(), say("judge.count-each", {{"count", each}, {"launches", runs.size()}})};
}

std::string first_problem(const std::vector<LockRun>& runs, const std::string& where) {
  for (const auto& r : runs)
    if (const std::string p = problem(r); !p.empty()) return say("judge.where-problem", {{"where", where}, {"problem", p}});
  return "";
}

Lost lost_updates(const std::vector<LockRun>& runs) {
  Lost l;
  for (const auto& r : runs) {
    l.lost += r.lost();
    l.total += r.expected;
    l.losing += r.lost() != 0 ? 1 : 0;
    l.stuck = l.stuck || r.timed_out();
  }
  return l;
}

std::string model_outcome_text(const SimResult& r) {
  switch (r.outcome) {
    case Outcome::completed:
      return say("outcome.completes", {{"steps", r.rounds}, {"count", count_text(r.count, r.expected)}});
    case Outcome::deadlock:
      return say("outcome.deadlock", {{"later", r.repeat_from + r.cycle_rounds}, {"earlier", r.repeat_from}});
    case Outcome::step_limit: return say("outcome.undecided", {{"steps", r.rounds}});
  }
  return "";
}

bool lockstep_deadlocks(int threads) { return threads > 1; }

Verdict lockstep_verdict(const SimResult& lockstep) {
  if (lockstep_deadlocks(lockstep.config.threads))
    return {lockstep.outcome == Outcome::deadlock,
            lockstep.holder.empty() ? model_outcome_text(lockstep) : lockstep.holder};
  return {lockstep.exact(), say("judge.one-lane", {{"outcome", model_outcome_text(lockstep)}})};
}

std::vector<double> per_handoff(const std::vector<LockRun>& runs) {
  std::vector<double> v;
  for (const auto& r : runs)
    if (!r.timed_out() && r.handoffs > 0) v.push_back(static_cast<double>(r.expected) / static_cast<double>(r.handoffs));
  return v;
}

std::optional<double> combining_ratio(const std::vector<LockRun>& combining, const std::vector<LockRun>& cas) {
  const double comb = report::median(ns_samples(combining)), base = report::median(ns_samples(cas));
  if (comb <= 0 || base <= 0) return std::nullopt;
  return comb / base;
}

namespace {

// The delay in the largest unit that holds it whole, joined by `space`: 10000 -> "10" + space + "us".
std::string delay_in_units(unsigned ns, const char* space) {
  if (ns >= 1000000 && ns % 1000000 == 0) return std::to_string(ns / 1000000) + space + "ms";
  if (ns >= 1000 && ns % 1000 == 0) return std::to_string(ns / 1000) + space + "us";
  return std::to_string(ns) + space + "ns";
}

}  // namespace

std::string delay_text(unsigned ns) { return delay_in_units(ns, " "); }
std::string delay_id(unsigned ns) { return delay_in_units(ns, ""); }

DelayFinding delay_finding(const std::vector<DelayRuns>& delayed, const std::vector<std::vector<LockRun>>& fixes) {
  DelayFinding f;
  for (const auto& d : delayed) {
    const Lost l = lost_updates(d.runs);
    f.lost.lost += l.lost;
    f.lost.total += l.total;
    f.lost.losing += l.losing;
    f.lost.stuck = f.lost.stuck || l.stuck;
    if (l.lost > 0) f.longest_losing = std::max(f.longest_losing, d.delay_ns);
  }
  f.fixes_exact = !fixes.empty();
  for (const auto& runs : fixes) f.fixes_exact = f.fixes_exact && runs_exact(runs).passed;
  return f;
}

std::string delay_verdict(const DelayFinding& f) {
  const std::string fixes = say(f.fixes_exact ? "delay.fixes-exact" : "delay.fixes-not-exact");
  if (f.lost.stuck) return say("delay.verdict-stuck", {{"fixes", fixes}});
  if (f.lost.lost > 0)
    return say("delay.verdict-lost", {{"delay", delay_text(f.longest_losing)},
                                      {"lost", report::grouped(static_cast<std::uint64_t>(f.lost.lost))},
                                      {"total", report::grouped(static_cast<std::uint64_t>(f.lost.total))},
                                      {"fixes", fixes}});
  return say("delay.verdict-none-lost", {{"fixes", fixes}});
}

std::optional<std::string> delay_budget_error(const std::vector<int>& delays_ns, int runs, int blocks, int iterations) {
  long long per_pass = 0;
  for (int d : delays_ns) per_pass += d;
  const long long wait = 2LL * runs * blocks * iterations * per_pass;
  if (wait <= kMaxDelayWaitNs) return std::nullopt;
  return "--part delay-fix: " + std::to_string(runs) + " runs x " + grid_text(blocks, 1) + " x " +
         std::to_string(iterations) + " iterations x the delays (" + std::to_string(per_pass) +
         " ns in all) x 2 placements is " + std::to_string(wait / 1000000) +
         " ms of waiting inside the lock, more than " + std::to_string(kMaxDelayWaitNs / 1000000) +
         " ms; accepted: at most " + std::to_string(kMaxDelayWaitNs / 1000000) +
         " ms in all: give fewer --runs, --blocks, --iterations or shorter --delays";
}

Verdict shared_mutex_counts(const SharedMutexRun& r) {
  std::string counts;
  bool exact = !r.counts.empty() && r.gave_up == 0;
  for (long long c : r.counts) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(c);
    exact = exact && c == r.expected;
  }
  if (r.gave_up > 0)
    return {exact, say("shared.counts-gave-up", {{"counts", counts}, {"expected", r.expected}, {"gave-up", r.gave_up}})};
  return {exact, say("shared.counts", {{"counts", counts}, {"expected", r.expected}})};
}

Verdict shared_mutex_alive(const SharedMutexRun& r) {
  for (std::size_t i = 0; i < r.alive.size(); ++i)
    if (!r.alive[i]) return {false, say("shared.freed-after", {{"launch", i + 1}})};
  return {!r.alive.empty(), say("shared.alive-after", {{"launches", r.alive.size()}})};
}

Verdict shared_mutex_frees_once(const SharedMutexRun& r, const OwnershipRun& model) {
  const bool once = r.mutex_destructor_calls == 1 && r.frees_ok == 1 && r.frees_failed == 0 && r.owners_at_free == 0;
  std::string detail = say("shared.frees-detail",
                           {{"calls", r.mutex_destructor_calls}, {"ok", r.frees_ok}, {"failed", r.frees_failed}});
  if (r.owners_at_free > 0) detail += say("shared.freed-while-held", {{"owners", r.owners_at_free}});
  detail += say(model.frees == 1 ? "shared.model-free" : "shared.model-frees", {{"frees", model.frees}});
  return {once && model.frees_once(), detail};
}

std::optional<std::string> acquisitions_error(const std::string& part, int blocks, int threads, int iterations) {
  const long long n = static_cast<long long>(blocks) * threads * iterations;
  if (n <= kMaxAcquisitions) return std::nullopt;
  return part + ": " + grid_text(blocks, threads) + " x " + std::to_string(iterations) + " iterations is " +
         std::to_string(n) + " lock acquisitions in one launch, more than " + std::to_string(kMaxAcquisitions) +
         " (several seconds of a contended lock); accepted: blocks x threads x --iterations of at most " +
         std::to_string(kMaxAcquisitions) + ": give fewer --iterations or --blocks";
}

int stale_runs(std::optional<int> runs, int blocks, int iterations) {
  if (runs) return *runs;
  const long long per_launch = static_cast<long long>(blocks) * iterations;
  return static_cast<int>(std::clamp<long long>((1LL << 20) / per_launch, 1, 4));
}

}  // namespace cudasync::lock
