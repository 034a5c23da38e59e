// The snippets lessons show to be refused by nvcc: a model-only build says why it has none; a CUDA
// build compiled every snippet at build time and knows each one by its name.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/expected_errors.hpp"
#include "core/version.hpp"

namespace cudasync {
namespace {

TEST(ExpectedErrors, AModelOnlyBuildSaysItNeedsTheCudaToolkit) {
  if (kCudaBuiltIn) GTEST_SKIP() << "a CUDA build";
  EXPECT_TRUE(expected_errors_data().empty());
  const ExpectedError e = expected_error("any_lesson/any_snippet");
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.failed);
  EXPECT_TRUE(e.first_error.empty());
  EXPECT_NE(e.reason.find("CUDA toolkit"), std::string::npos) << e.reason;
}

TEST(ExpectedErrors, ACudaBuildHasEverySnippetByNameAndOnlyThose) {
  if (!kCudaBuiltIn) GTEST_SKIP() << "a model-only build compiles no snippet";
  ASSERT_FALSE(expected_errors_data().empty());
  for (const auto& d : expected_errors_data()) {
    SCOPED_TRACE(d.name);
    const ExpectedError e = expected_error(d.name);
    EXPECT_TRUE(e.available);
    EXPECT_EQ(e.failed, d.failed);
    EXPECT_EQ(e.compiler.rfind("nvcc ", 0), 0u) << e.compiler;
    if (e.failed) {
      EXPECT_NE(e.first_error.find("error"), std::string::npos) << e.first_error;
      EXPECT_EQ(e.first_error.find('/'), std::string::npos) << "the path is cut to the file name: " << e.first_error;
    }
  }
  EXPECT_THROW(expected_error("no_lesson/no_snippet"), std::logic_error);
}

}  // namespace
}  // namespace cudasync
