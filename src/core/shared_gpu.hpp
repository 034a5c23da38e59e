#pragma once
// Is another process computing on this run's GPU? Then a timing part's figures are not the GPU's
// alone (a lab where many students share one GPU server). Asked of NVML, the NVIDIA Management
// Library that ships with the driver (libnvidia-ml.so.1), loaded with dlopen at run time: the
// binary does not link it, and a machine without it (or a model run) gets no warning at all.
#include <optional>
#include <vector>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync {

// How many of `pids` (NVML's compute processes on the GPU) are other processes than `self`. NVML
// may list host PIDs while this process sees its own PID namespace (a container): when `self` is
// not among them, one of them is taken to be this process, which holds a context on the GPU while
// a timing part runs.
int other_processes(const std::vector<unsigned>& pids, unsigned self);

// The other compute processes on the run's GPU, or nullopt when nothing can be said: a model run,
// no NVML, no permission, a GPU NVML does not find.
std::optional<int> other_processes_on_gpu(const RunContext& ctx);

// For a timing part (a `cost` part, a --bench sweep): when another process computes on the run's
// GPU, a note in `s` and a warning on stderr. Nothing on the model or where NVML cannot say.
void note_if_gpu_shared(const RunContext& ctx, report::Section& s);

}  // namespace cudasync
