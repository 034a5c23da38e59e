#pragma once
// Verdicts on what the GPUs did, against the reference model: pure functions, tested directly
// (tests/techniques/multi_gpu/multi_gpu_judge_test.cpp). The parts only show them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "techniques/multi_gpu/multi_gpu_model.hpp"

namespace cudasync::multi_gpu {

// ---- the flag handoff ----------------------------------------------------------------------------
// One configuration: what the model allows and, on a GPU, what was seen.
struct FlagRow {
  FlagSpec spec;
  FlagVerdict model;
  std::optional<FlagCounts> gpu;
};
FlagRow make_flag_row(const FlagSpec& spec);

// Without GPU counts: "allowed" or "forbidden". With them: "allowed, seen", "allowed, not seen",
// "forbidden, not seen", "FORBIDDEN, SEEN" (in the run's language).
std::string flag_verdict(const FlagRow& r);
// The GPUs read stale data where the model forbids it ("FORBIDDEN, SEEN").
bool forbidden_seen(const FlagRow& r);
// The stale share of the completed instances (0..1); nullopt when none completed.
std::optional<double> stale_share(const FlagCounts& c);

struct FlagSummary {
  std::uint64_t completed = 0;           // over the rows with GPU counts
  std::uint64_t stale_where_forbidden = 0;  // stale reads in rows whose model forbids them
  std::uint64_t checked_where_forbidden = 0;  // completed instances of those rows
  std::vector<std::string> findings;     // one per row that saw a stale read the model forbids
  std::vector<std::string> timeouts;     // one per row with waits that gave up
};
FlagSummary summarize(const std::vector<FlagRow>& rows);
// "system -> system", "device -> host"
std::string row_label(const FlagSpec& s);

// ---- the barrier and the all-reduce --------------------------------------------------------------
struct ValuesDiff {
  std::size_t compared = 0;
  std::size_t differ = 0;
  std::int64_t first = -1;  // the first index that differs (-1: none)
  bool same() const { return differ == 0 && compared > 0; }
};
// Element by element; a size mismatch counts every missing element as differing.
ValuesDiff compare_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model);

// GB/s (1e9 bytes per second) of `bytes` moved in `ns`; 0 for a time that is not positive.
double gbps(std::uint64_t bytes, double ns);
// Each sample as GB/s of `bytes`.
std::vector<double> gbps_samples(std::uint64_t bytes, const std::vector<double>& ns);

}  // namespace cudasync::multi_gpu
