#pragma once
// The SIMT model's runs as a report shows them (warp-spinlock, lock-order): a run's verdict in
// words, the program it ran, its step-by-step trace, its wait-for graph.
#include <string>

#include "core/report/report.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"
#include "techniques/deadlock_demo/deadlock_demo_simt.hpp"

namespace cudasync::deadlock_demo {

// "completes in 129 steps, counter 32 of 32", "deadlock: the state after step 4 is the state after
// step 2", "undecided after N steps".
std::string verdict(const simt::Result& r);

// The program: pc, code.
report::Table program_table(const simt::Machine& m, const std::string& id);
// The trace: one row per step, a column per traced lane ("lane-0" ...), memory, note.
report::Table trace_table(const simt::Result& r, const std::string& id, const std::string& title);

// The run's wait-for graph as facts: "<id>-waits-1" ..., "<id>-cycle" (titles "<label>: ...").
void add_waits(report::Section& s, const simt::Result& r, const std::string& id, const std::string& label);

// A run that must deadlock did, with a cycle in its wait-for graph.
Verdict run_cycle(const simt::Result& r);

}  // namespace cudasync::deadlock_demo
