#include "core/nvidia_driver.hpp"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

#include "core/device_info.hpp"
#include "core/words/words.hpp"

namespace cudasync {

bool libcuda_loadable() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return false;
  dlclose(h);
  return true;
}

std::string parse_driver_release(const std::string& text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:10 UTC 2025"
  // (open modules: "NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ...").
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("NVRM version:", 0) != 0) continue;
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      const auto dot = w.find('.');
      if (dot == std::string::npos || dot == 0) continue;
      bool digits = true;
      for (const char c : w) digits = digits && ((c >= '0' && c <= '9') || c == '.');
      if (digits) return w;
    }
  }
  return "";
}

std::string driver_release() {
  std::ifstream f("/proc/driver/nvidia/version");
  if (!f) return "";
  std::ostringstream s;
  s << f.rdbuf();
  return parse_driver_release(s.str());
}

std::string minimum_driver_branch(int runtime_version) {
  switch (runtime_version / 1000) {
    case 13: return "580";
    case 12: return "525";
    case 11: return "450";
    default: return "";
  }
}

int minimum_driver_cuda(int runtime_version) { return runtime_version / 1000 * 1000; }

bool driver_new_enough(int driver_version, int runtime_version) {
  return driver_version > 0 && driver_version >= minimum_driver_cuda(runtime_version);
}

words::Entry no_driver_message() { return words::say_both("core", "driver.none"); }

words::Entry old_driver_message(int driver_version, int runtime_version) {
  const std::string branch = minimum_driver_branch(runtime_version);
  const words::Args args{{"driver", version_string(driver_version)},
                         {"runtime", version_string(runtime_version)},
                         {"needs", version_string(minimum_driver_cuda(runtime_version))}};
  if (branch.empty()) return words::say_both("core", "driver.too-old", args);
  words::Args with_branch = args;
  with_branch.emplace_back("branch", branch);
  return words::say_both("core", "driver.too-old-branch", with_branch);
}

std::string minimum_driver_text(int runtime_version) {
  const std::string branch = minimum_driver_branch(runtime_version), major = std::to_string(runtime_version / 1000);
  if (branch.empty())
    return words::core("driver.minimum", {{"major", major}, {"needs", version_string(minimum_driver_cuda(runtime_version))}});
  return words::core("driver.minimum-branch", {{"major", major}, {"branch", branch}});
}

}  // namespace cudasync
