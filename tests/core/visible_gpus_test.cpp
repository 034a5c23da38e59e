// Which GPU a one-GPU process or child may see: the CUDA_VISIBLE_DEVICES entry of GPU N as the
// parent numbers it, and a child's launch that sees only its parent's GPU, as its device 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/parts/child.hpp"
#include "core/visible_gpus.hpp"

namespace cudasync {
namespace {

TEST(VisibleGpus, UnsetTheEntryIsTheIndexItself) {
  EXPECT_EQ(visible_device_entry(0, nullptr), "0");
  EXPECT_EQ(visible_device_entry(3, nullptr), "3");
  EXPECT_EQ(visible_device_entry(-1, nullptr), std::nullopt);
}

TEST(VisibleGpus, SetTheEntryIsTheIndexthOfTheListWhateverItNames) {
  EXPECT_EQ(visible_device_entry(0, "3,1"), "3");
  EXPECT_EQ(visible_device_entry(1, "3, GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"),
            "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6");
  EXPECT_EQ(visible_device_entry(2, "3,1"), std::nullopt) << "no such entry: the variable is left alone";
  EXPECT_EQ(visible_device_entry(0, ""), std::nullopt);
  EXPECT_EQ(visible_device_entry(1, "0,,2"), std::nullopt) << "an empty entry names nothing";
}

// The launch of lock's copy child by a parent on GPU 1, with CUDA_VISIBLE_DEVICES=`visible`.
parts::ChildLaunch child_of_gpu_one(const char* visible) {
  RunContext ctx;
  ctx.gpu = true;
  DeviceInfo d;
  d.index = 1;
  ctx.device = d;
  setenv("CUDA_VISIBLE_DEVICES", visible, 1);
  parts::ChildLaunch l = parts::child_launch(ctx, "lock", "copy", {});
  unsetenv("CUDA_VISIBLE_DEVICES");
  return l;
}

// The value after --device in a child's arguments ("" when there is none).
std::string device_argument(const parts::ChildLaunch& l) {
  const auto device = std::find(l.args.begin(), l.args.end(), "--device");
  return device == l.args.end() || device + 1 == l.args.end() ? "" : *(device + 1);
}

TEST(VisibleGpus, AChildOfGpuOneSeesOnlyItAsItsDeviceZero) {
  const parts::ChildLaunch l = child_of_gpu_one("2,5");
  EXPECT_EQ(l.env, std::vector<std::string>{"CUDA_VISIBLE_DEVICES=5"});
  EXPECT_EQ(device_argument(l), "0");
}

TEST(VisibleGpus, AChildWhoseGpuCannotBeNamedKeepsItsParentsNumbering) {
  const parts::ChildLaunch l = child_of_gpu_one("2");  // one entry, yet the parent saw a GPU 1: leave it
  EXPECT_TRUE(l.env.empty());
  EXPECT_EQ(device_argument(l), "1");
}

}  // namespace
}  // namespace cudasync
