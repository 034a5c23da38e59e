#include "core/sanitizer_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

namespace cudasync {

namespace {

bool runnable(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> find_cuda_tool(const std::string& name, std::string& looked,
                                          const std::vector<std::string>& extra) {
  std::vector<std::string> places;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty()) places.push_back(dir + "/" + name);
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) places.push_back(std::string(v) + "/bin/" + name);
  places.push_back("/usr/local/cuda/bin/" + name);
  places.insert(places.end(), extra.begin(), extra.end());
  for (const auto& p : places)
    if (runnable(p)) return p;
  looked = "PATH, $CUDA_HOME/bin, $CUDA_PATH/bin and /usr/local/cuda/bin";
  return std::nullopt;
}

std::optional<std::string> find_compute_sanitizer(std::string& looked) {
  std::vector<std::string> extra;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) extra.push_back(std::string(v) + "/compute-sanitizer/compute-sanitizer");
  extra.push_back("/usr/local/cuda/compute-sanitizer/compute-sanitizer");
  return find_cuda_tool("compute-sanitizer", looked, extra);
}

}  // namespace cudasync
