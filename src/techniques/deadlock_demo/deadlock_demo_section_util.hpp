#pragma once
// The pieces every scenario's section is built from: the model's schedule and wait-for graph as
// tables, the stuck set as ranges with their times, the check that the GPU's stuck set is the
// model's, the health check. Used by deadlock_demo_sections*.cpp only.
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "core/report/text_format.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"

namespace cudasync::deadlock_demo::detail {

using report::fixed;

std::string ms_of_ns(long long ns);  // "50.012 ms"

// The schedule: step, who, what.
report::LaneTable steps_table(const std::vector<Step>& steps, const std::string& id, const std::string& title);
// The model's facts: the wait-for graph in words, its cycle, the predicted stuck set.
void add_model_facts(report::Section& s, const ScenarioModel& m, const Describe& describe, const std::string& noun);

// Records folded into ranges, with when each range started and ended (GPU times; the model has none).
report::LaneTable ranges_table(const std::vector<Record>& records, const Describe& describe, const std::string& noun,
                               const std::string& id, const std::string& title, bool with_times);

// "GPU agrees with the reference model: who was stuck" — the two foldings, range by range.
report::Check stuck_agreement(const std::vector<Record>& gpu, const std::vector<Record>& model,
                              const Describe& describe, const std::string& noun);

// Every record was written (nobody "never started") and some waiter gave up: the deadlock ended
// by its deadline and every block or lane said where it was. `end_ns` of the latest giver-up is
// reported against the deadline.
report::Check ended_check(const std::vector<Record>& records, bool timed_out, int deadline_ms, const std::string& noun);

// The health check's fact and check ("health check after <scenario>").
void add_health(report::Section& s, const std::optional<Health>& h, const std::string& after);

// A launch time: one sample on a GPU, "needs a GPU" in a model run.
report::Measurement launch_time(const std::string& name, std::optional<double> ms, const std::string& note);

// The model's own checks: the deadlock it predicts has a cycle; the fix completes.
void add_model_checks(report::Section& s, const ScenarioModel& m, bool expect_deadlock);

}  // namespace cudasync::deadlock_demo::detail
