#pragma once
// GPU tests call this first: no GPU, no test (skipped with the reason, not passed).
#include <string>

#include "core/device_info.hpp"

#define CUDASYNC_REQUIRE_GPU()                                                          \
  do {                                                                                  \
    const ::cudasync::GpuProbe cudasync_probe_ = ::cudasync::probe_gpus();              \
    if (cudasync_probe_.devices.empty())                                                \
      GTEST_SKIP() << "no usable GPU: " << cudasync_probe_.reason;                      \
  } while (0)
