// The driver as cudasync needs it: the release from /proc/driver/nvidia/version, the minimum
// driver of a CUDA runtime (minor version compatibility: 13.x needs R580, 12.x R525), and the two
// messages a student sees instead of "CUDA driver version is insufficient for CUDA runtime version".
#include <gtest/gtest.h>

#include "core/nvidia_driver.hpp"
#include "core/words/language.hpp"

using namespace cudasync;

TEST(NvidiaDriver, ReleaseFromProcText) {
  EXPECT_EQ(parse_driver_release("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:10 UTC 2025\n"
                                 "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "580.65.06");
  EXPECT_EQ(parse_driver_release("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  "
                                 "(dvs-builder@U16-I3-B03-4-3)  Wed May 21 2025\n"),
            "575.57.08");
  EXPECT_EQ(parse_driver_release(""), "");
  EXPECT_EQ(parse_driver_release("GCC version: 12.2.0\n"), "");
}

TEST(NvidiaDriver, MinimumDriverByRuntimeMajor) {
  EXPECT_EQ(minimum_driver_branch(13000), "580");
  EXPECT_EQ(minimum_driver_branch(13020), "580");
  EXPECT_EQ(minimum_driver_branch(12080), "525");
  EXPECT_EQ(minimum_driver_branch(11040), "450");
  EXPECT_EQ(minimum_driver_branch(99000), "");
  EXPECT_EQ(minimum_driver_cuda(13020), 13000);
  EXPECT_EQ(minimum_driver_text(13000), "CUDA 13.x: NVIDIA driver R580 or newer");
}

TEST(NvidiaDriver, NewEnoughWithinTheMajorRelease) {
  EXPECT_TRUE(driver_new_enough(13000, 13000));
  EXPECT_TRUE(driver_new_enough(13000, 13020));  // minor version compatibility
  EXPECT_TRUE(driver_new_enough(13020, 13000));
  EXPECT_FALSE(driver_new_enough(12080, 13000));
  EXPECT_FALSE(driver_new_enough(0, 13000));  // no driver
}

TEST(NvidiaDriver, MessagesNameBothVersionsAndTheMinimum) {
  EXPECT_EQ(no_driver_message().en, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
  const std::string m = old_driver_message(12040, 13000).en;
  EXPECT_NE(m.find("CUDA 12.4"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA 13.0 runtime"), std::string::npos) << m;
  EXPECT_NE(m.find("R580 or newer"), std::string::npos) << m;
}

// The probe's reasons come in both languages (the JSON keeps English, the screen says the run's),
// with the same versions in each.
TEST(NvidiaDriver, MessagesInChineseNameTheSameVersions) {
  EXPECT_EQ(no_driver_message().zh, "没有找到 NVIDIA 驱动（无法加载 libcuda.so.1）");
  const std::string m = old_driver_message(12040, 13000).zh;
  for (const char* s : {"CUDA 12.4", "CUDA 13.0", "R580"}) EXPECT_NE(m.find(s), std::string::npos) << m;
  const words::LanguageScope zh(words::Lang::zh);
  EXPECT_EQ(minimum_driver_text(13000), "CUDA 13.x：NVIDIA 驱动 R580 或更新");
}
