// choose_backend with made-up probes: which backend a run gets, and which errors (exit codes)
// a bad --backend / --device combination gives. See core/backend.hpp and core/errors.hpp.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/backend.hpp"
#include "core/errors.hpp"
#include "core/words/language.hpp"

using cudasync::BackendChoice;
using cudasync::BackendRequest;
using cudasync::choose_backend;
using cudasync::DeviceInfo;
using cudasync::ExitCode;
using cudasync::GpuProbe;
using cudasync::NoGpuError;
using cudasync::UsageError;
namespace words = cudasync::words;

namespace {

GpuProbe no_gpus() {
  GpuProbe p;
  p.reason = {"no CUDA-capable device is detected", "未检测到支持 CUDA 的设备"};
  return p;
}

GpuProbe gpus(int n) {
  GpuProbe p;
  p.built_with_cuda = true;
  p.driver_version = 13000;
  p.runtime_version = 13000;
  for (int i = 0; i < n; ++i) {
    DeviceInfo d;
    d.index = i;
    d.name = "Fake GPU " + std::to_string(i);
    d.cc_major = 8 + i;
    d.cc_minor = 0;
    d.sm_count = 100 + i;
    p.devices.push_back(d);
  }
  return p;
}

// Runs choose_backend expecting an Error of type E; returns it so the caller can inspect it.
template <typename E>
std::optional<E> expect_error(BackendRequest r, std::optional<int> device, const GpuProbe& p) {
  try {
    (void)choose_backend(r, device, p);
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "no exception";
  return std::nullopt;
}

}  // namespace

TEST(Backend, ToString) {
  EXPECT_STREQ(cudasync::to_string(BackendRequest::automatic), "auto");
  EXPECT_STREQ(cudasync::to_string(BackendRequest::gpu), "gpu");
  EXPECT_STREQ(cudasync::to_string(BackendRequest::model), "model");
}

TEST(Backend, AutoWithoutDevicesFallsBackToTheModelAndSaysWhy) {
  const BackendChoice c = choose_backend(BackendRequest::automatic, std::nullopt, no_gpus());
  EXPECT_FALSE(c.gpu);
  EXPECT_FALSE(c.device.has_value());
  EXPECT_NE(c.reason.find("model"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("no CUDA-capable device is detected"), std::string::npos) << c.reason;
}

TEST(Backend, AutoWithDevicesUsesGpuZero) {
  const BackendChoice c = choose_backend(BackendRequest::automatic, std::nullopt, gpus(2));
  EXPECT_TRUE(c.gpu);
  ASSERT_TRUE(c.device.has_value());
  EXPECT_EQ(c.device->index, 0);
  EXPECT_EQ(c.device->name, "Fake GPU 0");
  EXPECT_NE(c.reason.find("Fake GPU 0"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("8.0"), std::string::npos) << c.reason;
}

TEST(Backend, DeviceSelectsTheGpu) {
  const BackendChoice c = choose_backend(BackendRequest::automatic, 1, gpus(2));
  ASSERT_TRUE(c.device.has_value());
  EXPECT_EQ(c.device->index, 1);
  EXPECT_EQ(c.device->sm_count, 101);
  const BackendChoice g = choose_backend(BackendRequest::gpu, 1, gpus(2));
  EXPECT_TRUE(g.gpu);
  EXPECT_EQ(g.device->name, "Fake GPU 1");
}

TEST(Backend, GpuWithoutDevicesIsNoGpuErrorExit3) {
  const auto e = expect_error<NoGpuError>(BackendRequest::gpu, std::nullopt, no_gpus());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, ExitCode::no_gpu);
  EXPECT_EQ(static_cast<int>(e->code), 3);
  EXPECT_EQ(e->kind, "no_gpu");
  EXPECT_NE(std::string(e->what()).find("--backend gpu"), std::string::npos) << e->what();
  EXPECT_NE(std::string(e->what()).find("no CUDA-capable device is detected"), std::string::npos) << e->what();
}

TEST(Backend, ModelNeverNeedsAGpu) {
  for (int n : {0, 1, 3}) {
    const BackendChoice c = choose_backend(BackendRequest::model, std::nullopt, n ? gpus(n) : no_gpus());
    EXPECT_FALSE(c.gpu) << n;
    EXPECT_FALSE(c.device.has_value()) << n;
    EXPECT_NE(c.reason.find("--backend model"), std::string::npos) << c.reason;
  }
  // A valid --device with --backend model is still the model.
  EXPECT_FALSE(choose_backend(BackendRequest::model, 0, gpus(1)).gpu);
}

TEST(Backend, DeviceOutOfRangeWithGpusIsUsageErrorExit2) {
  for (int bad : {2, 5, -1}) {
    for (auto req : {BackendRequest::automatic, BackendRequest::gpu}) {
      const auto e = expect_error<UsageError>(req, bad, gpus(2));
      ASSERT_TRUE(e.has_value()) << bad;
      EXPECT_EQ(static_cast<int>(e->code), 2);
      EXPECT_EQ(e->kind, "usage");
      const std::string msg = e->what();
      EXPECT_NE(msg.find("--device " + std::to_string(bad)), std::string::npos) << msg;
      EXPECT_NE(msg.find("0..1"), std::string::npos) << msg;  // what would be accepted
    }
  }
}

TEST(Backend, DeviceWithoutGpusIsNoGpuErrorExit3) {
  for (auto req : {BackendRequest::automatic, BackendRequest::gpu}) {
    const auto e = expect_error<NoGpuError>(req, 0, no_gpus());
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(static_cast<int>(e->code), 3);
    EXPECT_NE(std::string(e->what()).find("--device 0"), std::string::npos) << e->what();
  }
  const auto e5 = expect_error<NoGpuError>(BackendRequest::automatic, 5, no_gpus());
  ASSERT_TRUE(e5.has_value());
  EXPECT_NE(std::string(e5->what()).find("--device 5"), std::string::npos);
}

TEST(Backend, ModelWithDeviceNeverNeedsAGpu) {
  // "model never needs a GPU": `--backend model --device 0` on a machine without GPUs runs the model.
  const BackendChoice c = choose_backend(BackendRequest::model, 0, no_gpus());
  EXPECT_FALSE(c.gpu);
}

// The log line is in the run's language; the reason the JSON keeps is English in every language.
TEST(Backend, TheLogSaysItInTheRunsLanguageAndTheJsonInEnglish) {
  const words::LanguageScope zh(words::Lang::zh);
  const BackendChoice c = choose_backend(BackendRequest::automatic, 1, gpus(2));
  EXPECT_EQ(c.reason.rfind("backend: gpu 1 (", 0), 0u) << c.reason;
  EXPECT_EQ(c.said.rfind("后端：GPU 1（", 0), 0u) << c.said;
  const BackendChoice m = choose_backend(BackendRequest::model, std::nullopt, no_gpus());
  EXPECT_EQ(m.reason, "backend: model (asked for with --backend model)");
  EXPECT_EQ(m.said, "后端：参考模型（用 --backend model 指定）");
  // Without a GPU the probe's reason is said in each one's language too.
  const BackendChoice n = choose_backend(BackendRequest::automatic, std::nullopt, no_gpus());
  EXPECT_EQ(n.reason, "backend: model (no usable GPU: no CUDA-capable device is detected)");
  EXPECT_EQ(n.said, "后端：参考模型（没有可用的 GPU：未检测到支持 CUDA 的设备）");
}

TEST(Backend, ErrorsDeriveFromTheCommonErrorType) {
  // main catches cudasync::Error and exits with its code: both errors must be one.
  const auto e = expect_error<cudasync::Error>(BackendRequest::gpu, std::nullopt, no_gpus());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, ExitCode::no_gpu);
}
