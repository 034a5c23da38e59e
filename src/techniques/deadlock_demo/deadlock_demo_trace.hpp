#pragma once
// The SIMT model's runs as a report shows them (warp-spinlock, lock-order): a run's verdict in
// words, the program it ran, its step-by-step trace (what each traced lane did, in this lesson's
// words), its wait-for graph.
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/deadlock_demo/deadlock_demo_judge.hpp"
#include "techniques/deadlock_demo/deadlock_demo_waits.hpp"

namespace cudasync::deadlock_demo {

// "completes in 129 steps, counter 32 of 32", "deadlock: the state after step 4 is the state after
// step 2", "undecided after N steps".
std::string verdict(const ModelRun& r);

// What one traced lane did in one step: "CAS lock: 0, takes it", "CAS lock: 1 (held by lane 0)",
// "spins", "leaves the loop", "waits at 2", "releases lock", "exits", "exited".
std::string event_text(const ModelRun& r, const simt::Event& e);
// The memory after a step, words of one family ("flag[0]", "flag[1]", ...) as one item with the
// traced lanes' values: "lock 1, counter 0", "flag 0,0,0,0".
std::string memory_text(const ModelRun& r, const std::vector<long long>& memory);
// A step's note: the warp's divergence ("lanes 1-3 go to 0, lane 0 to 2; they meet again at 2")
// and the repeat that makes the deadlock ("the same state as after step 2: it repeats forever").
std::string row_note(const ModelRun& r, const simt::Row& row);

// The program: pc, code.
report::Table program_table(const simt::Machine& m, const std::string& id);
// The trace: one row per step, a column per traced lane ("lane-0" ...), memory, note.
report::Table trace_table(const ModelRun& r, const std::string& id, const std::string& title);

// The run's wait-for graph as facts: "<id>-waits-1" ..., "<id>-cycle", "<id>-cycle-nodes" (titles
// "<label>: ...").
void add_waits(report::Section& s, const ModelRun& r, const std::string& id, const std::string& label);

// A run that must deadlock did, with a cycle in its wait-for graph.
Verdict run_cycle(const ModelRun& r);

}  // namespace cudasync::deadlock_demo
