#pragma once
// Code a lesson shows to be refused by the compiler ("a plain thread_group has no shuffle"): each
// snippet under src/techniques/<lesson>/expected_errors/ is compiled by this build's nvcc at build
// time (cmake/expected_errors.cmake), and the compiler's first error line is embedded. Plain C++:
// a CUDA build shows it without a GPU; a model-only build says it needs the CUDA toolkit.
#include <string>
#include <string_view>
#include <vector>

namespace cudasync {

struct ExpectedErrorData {
  const char* name;         // "<lesson folder>/<snippet stem>": "warp_primitives/thread_group_shfl"
  bool failed;              // nvcc refused the snippet
  const char* first_error;  // its first line that says "error", path cut to the file name
  const char* compiler;     // "nvcc 13.0.88"
};
const std::vector<ExpectedErrorData>& expected_errors_data();  // generated

struct ExpectedError {
  bool available = false;   // this build ran nvcc on the snippet
  bool failed = false;      // and nvcc refused it
  std::string first_error;  // "thread_group_shfl.cu(7): error: class ... has no member \"shfl_down\""
  std::string compiler;
  std::string reason;       // why it is not available
};

// The snippet `name` as this build compiled it. A model-only build has none: available is false and
// the reason says so. A CUDA build that lacks `name` is a programming error (std::logic_error).
ExpectedError expected_error(std::string_view name);

}  // namespace cudasync
