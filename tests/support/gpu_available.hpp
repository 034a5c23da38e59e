#pragma once
// GPU tests call this first: no GPU, no test (skipped with the reason, not passed).
#include <string>

#include "core/device_info.hpp"

#define CUDASYNC_REQUIRE_GPU()                                                          \
  do {                                                                                  \
    const ::cudasync::GpuProbe cudasync_probe_ = ::cudasync::probe_gpus();              \
    if (cudasync_probe_.devices.empty())                                                \
      GTEST_SKIP() << "no usable GPU: " << cudasync_probe_.reason.en;                   \
  } while (0)

// Multi-GPU tests (label multigpu) call this first: fewer than `n` GPUs, no test (skipped with
// how many there are).
#define CUDASYNC_REQUIRE_GPUS(n)                                                                  \
  do {                                                                                            \
    const ::cudasync::GpuProbe cudasync_probe_ = ::cudasync::probe_gpus();                        \
    if (cudasync_probe_.devices.size() < static_cast<std::size_t>(n))                             \
      GTEST_SKIP() << "needs " << (n) << " GPUs, this machine has " << cudasync_probe_.devices.size() \
                   << (cudasync_probe_.devices.empty() ? ": " + cudasync_probe_.reason.en : std::string()); \
  } while (0)
