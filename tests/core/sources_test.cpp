// The works the lessons cite: each complete enough to find, cited by a stable key, and listed by
// `cudasync sources`.
#include <gtest/gtest.h>

#include <set>

#include "core/report/report.hpp"
#include "core/sources.hpp"
#include "core/words/words.hpp"
#include "support/cli_expect.hpp"

namespace cudasync::test {
namespace {

TEST(Sources, EachWorkHasAKeyAuthorsTitleAndPublication) {
  std::set<std::string> keys;
  for (const Source& s : sources()) {
    EXPECT_TRUE(report::is_id(s.key)) << s.key;
    EXPECT_TRUE(keys.insert(s.key).second) << "repeated key " << s.key;
    EXPECT_FALSE(s.cite.empty()) << s.key;
    EXPECT_FALSE(s.authors.empty()) << s.key;
    EXPECT_FALSE(s.title.empty()) << s.key;
    EXPECT_NE(s.published.find_first_of("0123456789"), std::string::npos) << s.key << ": no year";
    EXPECT_EQ(words::catalog("core").count("source." + s.key + ".about"), 1u) << s.key << ": what the lessons take";
  }
  EXPECT_EQ(source("ptx-isa").cite, "PTX ISA 9.0");
  EXPECT_THROW(source("seed-002"), std::logic_error);
}

TEST(Sources, TheCommandListsEveryWorkOrTheOnesAsked) {
  const auto all = valid_document("sources --json");
  EXPECT_EQ(all["report"]["sections"].size(), sources().size());
  const auto one = valid_document("sources fan-ch10 --json");
  ASSERT_EQ(one["report"]["sections"].size(), 1u);
  EXPECT_NE(one["report"]["sections"]["fan-ch10"]["facts"]["where"]["value"].get<std::string>().find(
                "brucefan1983/CUDA-Programming"),
            std::string::npos);
  expect_usage_error({"sources seed-002", {"seed-002", "fan-ch10"}});
}

}  // namespace
}  // namespace cudasync::test
