#pragma once
// Event timing: RAII events, and a helper that times a callable many times after a warm-up and
// returns every sample (the Report computes median/min/max).
#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace cudasync::cuda {

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s = nullptr);

 private:
  cudaEvent_t e_ = nullptr;
};

// Milliseconds between two recorded events (waits for `stop`).
float elapsed_ms(const Event& start, const Event& stop);

// Runs `work` `warmup` times, then `reps` times each between two events; returns ms per rep.
std::vector<double> time_repeated_ms(const std::function<void()>& work, int reps, int warmup = 2,
                                     cudaStream_t stream = nullptr);

}  // namespace cudasync::cuda
