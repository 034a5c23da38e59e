#pragma once
// A kernel that keeps the memory system busy while a student's kernel runs beside it (a kernel
// exercise's "memory_stress": true; core/course/kernel_check.cpp). Weak memory behaviour — a store
// seen late, two stores seen out of order by another SM — shows up far more often when L2 and the
// memory controllers are loaded by other traffic; cuda-litmus and GPUHarbor stress the same way
// (extra threads reading, writing and doing atomics on random lines of a scratch buffer).
//
//   MemoryStress stress;                  // 64 MiB of scratch, a stop flag, its own stream
//   stress.start();                       // launched on a stream that never waits for stream 0
//   student_kernel<<<g, b>>>(...);        // stream 0: runs beside it
//   cudaStreamSynchronize(nullptr);
//   stress.stop();                        // raises the flag, waits for the stress kernel
//
// The stress kernel also stops by itself after kBudgetNs (%globaltimer), so it can never hold
// SMs that a student's grid barrier is waiting for longer than that.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace cudasync::cuda {

class MemoryStress {
 public:
  static constexpr std::size_t kWords = std::size_t{16} << 20;  // 64 MiB of unsigned: past an H100's 50 MB L2
  static constexpr unsigned long long kBudgetNs = 200'000'000;   // 200 ms, then it ends by itself
  static constexpr int kThreads = 256;

  MemoryStress();  // device memory, a mapped stop flag and a non-blocking stream
  ~MemoryStress();
  MemoryStress(const MemoryStress&) = delete;
  MemoryStress& operator=(const MemoryStress&) = delete;

  void start();  // one block per four SMs, before the student's launch
  void stop();   // after it: raise the flag, wait for the stress kernel to end

  int blocks() const { return blocks_; }

 private:
  unsigned* words_ = nullptr;
  int* stop_host_ = nullptr;
  int* stop_dev_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int blocks_ = 1;
};

}  // namespace cudasync::cuda
