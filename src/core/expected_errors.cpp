#include "core/expected_errors.hpp"

#include <stdexcept>

#include "core/version.hpp"

namespace cudasync {

ExpectedError expected_error(std::string_view name) {
  ExpectedError e;
  if (!kCudaBuiltIn) {
    e.reason = "this cudasync was built without CUDA: the compiler's message needs the CUDA toolkit (nvcc) at build time";
    return e;
  }
  for (const auto& d : expected_errors_data()) {
    if (name != d.name) continue;
    e.available = true;
    e.failed = d.failed;
    e.first_error = d.first_error;
    e.compiler = d.compiler;
    return e;
  }
  throw std::logic_error("no expected-error snippet '" + std::string(name) + "' in this build");
}

}  // namespace cudasync
