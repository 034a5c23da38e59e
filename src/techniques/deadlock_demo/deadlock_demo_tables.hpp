#pragma once
// The pieces every part's section is built from: the model's schedule as a table, its wait-for
// graph and predicted stuck set as facts, the GPU's records folded into ranges with their times,
// the health check, a launch time. Verdicts come from deadlock_demo_judge.hpp.
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/deadlock_demo/deadlock_demo.hpp"
#include "techniques/deadlock_demo/deadlock_demo_graph.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"

namespace cudasync::deadlock_demo {

// The schedule: step, who, what.
report::Table steps_table(const std::vector<Step>& steps, const std::string& id, const std::string& title);

// The model's facts: the wait-for graph in words ("model-waits-1", ...), its cycle ("model-cycle")
// and how many nodes it has ("model-cycle-nodes"), the predicted stuck set ("model-predicted").
void add_model_facts(report::Section& s, const ScenarioModel& m, const Describe& describe, const std::string& noun);
// The model's checks: the deadlock it predicts has a cycle ("model-deadlocks", when
// `expect_deadlock`); the fix completes ("model-fix-completes").
void add_model_checks(report::Section& s, const ScenarioModel& m, bool expect_deadlock);

// Records folded into ranges, each with when its first and last member started and ended (ms on
// %globaltimer from the grid's start; "-" where none recorded it).
report::Table ranges_table(const std::vector<Record>& records, const Describe& describe, const std::string& noun,
                           const std::string& id, const std::string& title);

// What the GPU did: its ranges table (`table_id`) and the stuck set in words (`fact_id`).
void add_gpu_ranges(report::Section& s, const std::vector<Record>& records, const Describe& describe,
                    const std::string& noun, const std::string& table_id, const std::string& title,
                    const std::string& fact_id, const std::string& fact_title);

// The health check's fact and check (id "health"): "health check after <part>: this process still
// runs kernels". Nothing when it did not run.
void add_health(report::Section& s, const std::optional<Health>& h, const std::string& after);

// A launch time in ms: one sample on a GPU, "needs a GPU" in a model run.
report::Measurement launch_time(const std::string& id, const std::string& title, std::optional<double> ms,
                                const std::string& note = "");

// "<<<2112, 256>>>"
std::string grid_text(int blocks, int threads);
// "0.020 ms", for prose (notes, check details)
std::string ms_text(double ms);

}  // namespace cudasync::deadlock_demo
