#pragma once
// The model's runs as report tables: the program a protocol runs, and a run step by step.
#include <string>

#include "core/report/report.hpp"
#include "techniques/lock/lock_model.hpp"

namespace cudasync::lock {

// Table "program": pc and the source line of each instruction.
report::Table program_table(Protocol p);
// A run's trace, one row per step, one column per traced lane (or block); `show_l1` adds what each
// traced SM's L1 holds for the counter.
report::Table trace_table(const SimResult& r, const std::string& id, const std::string& title, bool show_l1);
std::string trace_id(Regime r);        // "trace-lockstep"
std::string regime_title(Regime r);    // "lockstep (one pc per warp: pre-Volta, cc < 7.0)"

}  // namespace cudasync::lock
