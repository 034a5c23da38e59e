#pragma once
// A folder of its own under /tmp for one test, removed with everything in it at the end of scope.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace cudasync::test {

struct TempDir {
  TempDir() {
    std::string name = (std::filesystem::temp_directory_path() / "cudasync_test_XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = name;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

}  // namespace cudasync::test
