#pragma once
// A section's checks, facts and tables by id, for the tests that feed a lesson's section builders
// made-up GPU results (the CLI tests read the same ids from the JSON). nullptr when absent.
//
//   EXPECT_FALSE(find_check(s, "gpu-agrees")->passed);
#include <string_view>

#include "core/report/report.hpp"

namespace cudasync::test {

const report::Check* find_check(const report::Section& s, std::string_view id);
const report::Fact* find_fact(const report::Section& s, std::string_view id);
const report::Table* find_table(const report::Section& s, std::string_view id);
// How many of the section's checks failed.
std::size_t failed_count(const report::Section& s);

}  // namespace cudasync::test
