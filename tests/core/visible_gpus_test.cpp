// Which GPU a one-GPU process or child may see: the CUDA_VISIBLE_DEVICES entry of GPU N as the
// parent numbers it, and a child's launch that sees only its parent's GPU, as its device 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

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

TEST(VisibleGpus, AChildOfGpuOneSeesOnlyItAsItsDeviceZero) {
  RunContext ctx;
  ctx.gpu = true;
  DeviceInfo d;
  d.index = 1;
  ctx.device = d;
  setenv("CUDA_VISIBLE_DEVICES", "2,5", 1);
  const parts::ChildLaunch l = parts::child_launch(ctx, "lock", "copy", {});
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(l.env, std::vector<std::string>{"CUDA_VISIBLE_DEVICES=5"});
  const auto device = std::find(l.args.begin(), l.args.end(), "--device");
  ASSERT_NE(device, l.args.end());
  EXPECT_EQ(*(device + 1), "0");
}

TEST(VisibleGpus, AChildWhoseGpuCannotBeNamedKeepsItsParentsNumbering) {
  RunContext ctx;
  ctx.gpu = true;
  DeviceInfo d;
  d.index = 1;
  ctx.device = d;
  setenv("CUDA_VISIBLE_DEVICES", "2", 1);  // one entry, yet the parent saw a GPU 1: leave it
  const parts::ChildLaunch l = parts::child_launch(ctx, "lock", "copy", {});
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_TRUE(l.env.empty());
  const auto device = std::find(l.args.begin(), l.args.end(), "--device");
  ASSERT_NE(device, l.args.end());
  EXPECT_EQ(*(device + 1), "1");
}

}  // namespace
}  // namespace cudasync
