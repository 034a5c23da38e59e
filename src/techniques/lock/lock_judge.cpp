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
  return std::to_string(r.gave_up) + " threads gave up at their deadline; blocks still spinning: " +
         report::list_of(r.stuck_blocks) + " (completed " + std::to_string(r.completed) + " of " +
         std::to_string(r.expected) + " acquisitions)";
}

std::string count_text(long long count, long long expected) {
  return std::to_string(count) + " of " + std::to_string(expected) + (count == expected ? " (exact)" : "");
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
  if (r.count != r.expected) return "count " + count_text(r.count, r.expected);
  if (r.answers_bad > 0)
    return std::to_string(r.answers_bad) + " of " + std::to_string(r.answers_checked) + " answers wrong; " +
           r.first_bad_answer;
  return "";
}

}  // namespace

Verdict runs_exact(const std::vector<LockRun>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (const std::string p = problem(runs[i]); !p.empty()) return {false, "launch " + std::to_string(i + 1) + ": " + p};
  const long long each = runs.empty() ? 0 : runs.front().expected;
  return {!runs.empty(), "count " + std::to_string(each) + " in each of " + std::to_string(runs.size()) + " launches"};
}

std::string first_problem(const std::vector<LockRun>& runs, const std::string& where) {
  for (const auto& r : runs)
    if (const std::string p = problem(r); !p.empty()) return where + ": " + p;
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
      return "completes in " + std::to_string(r.rounds) + " steps, count " + count_text(r.count, r.expected);
    case Outcome::deadlock:
      return "deadlock: the state after step " + std::to_string(r.repeat_from + r.cycle_rounds) +
             " is the state after step " + std::to_string(r.repeat_from);
    case Outcome::step_limit: return "undecided after " + std::to_string(r.rounds) + " steps";
  }
  return "";
}

bool lockstep_deadlocks(int threads) { return threads > 1; }

Verdict lockstep_verdict(const SimResult& lockstep) {
  if (lockstep_deadlocks(lockstep.config.threads))
    return {lockstep.outcome == Outcome::deadlock,
            lockstep.holder.empty() ? model_outcome_text(lockstep) : lockstep.holder};
  return {lockstep.exact(), model_outcome_text(lockstep) + "; a warp of one lane has no other lane to wait for"};
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

std::optional<std::string> acquisitions_error(const std::string& part, int blocks, int threads, int iterations) {
  const long long n = static_cast<long long>(blocks) * threads * iterations;
  if (n <= kMaxAcquisitions) return std::nullopt;
  return part + ": " + grid_text(blocks, threads) + " x " + std::to_string(iterations) + " iterations is " +
         std::to_string(n) + " lock acquisitions in one launch, more than " + std::to_string(kMaxAcquisitions) +
         " (several seconds of a contended lock); give fewer --iterations or --blocks";
}

int stale_runs(std::optional<int> runs, int blocks, int iterations) {
  if (runs) return *runs;
  const long long per_launch = static_cast<long long>(blocks) * iterations;
  return static_cast<int>(std::clamp<long long>((1LL << 20) / per_launch, 1, 4));
}

}  // namespace cudasync::lock
