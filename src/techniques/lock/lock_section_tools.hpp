#pragma once
// What the lock lesson's section builders share (beside core/report/text_format.hpp): count texts,
// the per-acquisition measurement, the exact-count check, and the model's program and trace tables.
// Defined in lock_sections.cpp; used by the part-6 section (lock_combining_section.cpp) too.
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "techniques/lock/lock_model.hpp"

namespace cudasync::lock {

std::string stuck_text(const LockRun& r);                  // "2 threads gave up ...; blocks still spinning: 17, 40 ..."
std::string count_text(long long count, long long expected);  // "320 of 320 (exact)"
// The launches' samples as ns per acquisition (launches that timed out are left out).
report::Measurement per_acquisition(const std::string& name, const std::vector<LockRun>& runs, bool gpu_run,
                                    const std::string& note);
// Passes when every launch completed with its exact count (and, for the combining lock, every
// answer 0 .. n-1 once); the detail names the first launch that did not.
report::Check exact_check(const std::string& name, const std::vector<LockRun>& runs);
report::LaneTable program_table(Protocol p, const std::string& id);
report::LaneTable trace_table(const SimResult& r, const std::string& id, const std::string& title, bool show_l1);
std::string model_outcome_text(const SimResult& r);        // "completes in 12 steps, count 8 of 8 (exact)"
std::string regime_title(Regime r);                        // "lockstep (one pc per warp: pre-Volta, cc < 7.0)"

}  // namespace cudasync::lock
