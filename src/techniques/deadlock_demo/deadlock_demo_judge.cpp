#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"

#include <algorithm>

#include "core/report/text_format.hpp"

namespace cudasync::deadlock_demo {

Verdict stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model, const Describe& describe,
                        const std::string& noun) {
  const auto g = fold(gpu, describe), m = fold(model, describe);
  if (g == m) return {true, ranges_text(g, noun)};
  return {false, say("judge.gpu-model", {{"gpu", ranges_text(g, noun)}, {"model", ranges_text(m, noun)}})};
}

Verdict ended_at_deadline(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun) {
  int missing = 0, gave = 0;
  long long last_end = -1;
  for (const auto& r : records) {
    if (r.state == static_cast<int>(State::never_started)) ++missing;
    if (r.state == static_cast<int>(State::gave_up)) {
      ++gave;
      last_end = std::max(last_end, r.end_ns);
    }
  }
  const std::string last = last_end >= 0 ? report::fixed(static_cast<double>(last_end) / 1e6, 3) + " ms" : "-";
  const std::string gave_up =
      say("judge.gave-up", {{"count", gave}, {"nouns", gave == 1 ? noun_word(noun) : nouns_word(noun)}, {"last", last},
                            {"deadline", deadline_ms}});
  return {missing == 0 && gave > 0 && timed_out,
          missing ? say("judge.gave-up-missing", {{"gave-up", gave_up}, {"missing", missing}}) : gave_up};
}

Verdict completed(const GridRun& run) {
  return {run.completed && run.result_ok, run.completed ? run.result : say(kGaveUpAtDeadline)};
}

Verdict cooperative_refused(const CoopRun& c) {
  const bool nothing_ran = std::all_of(c.run.records.begin(), c.run.records.end(), [](const Record& r) {
    return r.state == static_cast<int>(State::never_started);
  });
  return {!c.launched && c.error_code == 720 && nothing_ran,
          say(nothing_ran ? "judge.refused-none-ran" : "judge.refused-one-ran",
              {{"error", c.error_name}, {"code", c.error_code}, {"ms", report::fixed(c.host_ms, 3)}})};
}

Verdict cooperative_completed(const CoopRun& c) {
  return {c.launched && c.run.completed && c.run.result_ok, cooperative_outcome(c)};
}

std::string cooperative_outcome(const CoopRun& c) {
  if (c.launched) return say("judge.ran", {{"result", c.run.completed ? c.run.result : say(kGaveUpAtDeadline)}});
  return c.error_name + " (" + number_text(c.error_code) + "): " + c.error_text;
}

Verdict model_cycle(const ScenarioModel& m) {
  const std::string cycle = m.graph.cycle_text();
  return {m.deadlock && !cycle.empty(), cycle.empty() ? say("judge.no-cycle") : cycle};
}

Verdict lock_count_exact(const LaneRun& run) {
  const std::string counter = say("judge.counter", {{"count", run.count}, {"expected", run.expected}});
  return {!run.timed_out && run.count == run.expected,
          run.timed_out ? say("judge.counter-gave-up", {{"counter", counter}, {"gave-up", say(kLaneGaveUpAtDeadline)}})
                        : counter};
}

Verdict fix_counts_exact(const LockOrderRun& run) {
  return {run.count_a == run.expected && run.count_b == run.expected,
          say("judge.fix-counts", {{"a", run.count_a}, {"b", run.count_b}, {"expected", run.expected}})};
}

int tickets_in_order(const std::vector<int>& tickets) {
  int in_order = 0;
  for (std::size_t i = 0; i < tickets.size(); ++i) in_order += tickets[i] == static_cast<int>(i);
  return in_order;
}

bool as_specified(const BarrierObservation& seen, const ScenarioModel& model, const Describe& describe) {
  return fold(barrier_records(seen), describe) == fold(model.records, describe);
}

Verdict child_ended(const ChildOutcome& c) {
  switch (c.status) {
    case ChildOutcome::Status::ok: return {true, say("judge.child-answered")};
    case ChildOutcome::Status::cuda_error: return {true, say("judge.child-cuda-error", {{"message", c.message}})};
    default: return {false, c.message};
  }
}

}  // namespace cudasync::deadlock_demo
