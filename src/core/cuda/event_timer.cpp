#include "core/cuda/event_timer.hpp"

#include <utility>

#include "core/cuda/check.hpp"

namespace cudasync::cuda {

Event::Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
Event::~Event() {
  if (e_) CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
}
Event::Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (e_) CUDA_CHECK_NOTHROW(cudaEventDestroy(e_));
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}
void Event::record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }

float elapsed_ms(const Event& start, const Event& stop) {
  CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

std::vector<double> time_repeated_ms(const std::function<void()>& work, int reps, int warmup, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  Event start, stop;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    start.record(stream);
    work();
    stop.record(stream);
    samples.push_back(static_cast<double>(elapsed_ms(start, stop)));
  }
  return samples;
}

}  // namespace cudasync::cuda
