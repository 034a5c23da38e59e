#pragma once
// The GPU side of the cost model: one entry point that runs one probe (core/cost/probe.hpp),
// defined in cost_kernels.cu and cost_launch_kernels.cu. A model-only build gets a body that
// throws (core/gpu_entry.hpp); measure() calls it only on a GPU.
#include "core/cost/model.hpp"
#include "core/gpu_entry.hpp"

namespace cudasync::cost {

// Runs `spec` spec.reps times (after a warm-up) on the current device: one sample (ns) per launch,
// or, where the probe cannot run here (no clusters, no cooperative launch, a grid that does not fit
// at once), `skipped` says why. Probe::stream_read is the caller's (it reads the caller's input).
CUDASYNC_GPU_ENTRY(ProbeResult, gpu_probe, (const ProbeSpec& spec))

// Every need measured with gpu_probe on a GPU; on the model nothing runs.
inline Primitives measure(const std::vector<Need>& needs, bool gpu) {
  return measure_all(needs, gpu, [](const ProbeSpec& s) { return gpu_probe(s); });
}

}  // namespace cudasync::cost
