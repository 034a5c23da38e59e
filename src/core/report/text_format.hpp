#pragma once
// How numbers read in text, one definition for every renderer and lesson: a Value by its Format
// ("1,081,344", "0.925 x", "99.6%", "0x0000ffff"), and the small helpers prose uses
// ("0.690", "3, 7, ... (12 in all)").
#include <cstdint>
#include <string>
#include <vector>

#include "core/report/report.hpp"

namespace cudasync::report {

// One value as text. `with_unit` appends the format's unit ("331.2 ns"); table cells leave it to
// the column title. Undefined is "-", NeedsGpu "needs a GPU", booleans "yes" / "no".
//   format_value(std::int64_t{1081344}, Format::count) == "1,081,344"
//   format_value(0.9961, Format::percent) == "99.6%"
//   format_value(std::int64_t{0xffff}, Format::hex32) == "0x0000ffff"
std::string format_value(const Value& v, Format format, bool with_unit = false);

// v with `digits` digits after the point: fixed(0.6904, 3) == "0.690".
std::string fixed(double v, int digits);

// v through one printf conversion for a double ("%.3e", "%.17g"); for the formats fixed() cannot say.
std::string printf_number(const char* format, double v);

// Thousands separated by commas: grouped(1081344) == "1,081,344".
std::string grouped(std::uint64_t v);

// The first `limit` numbers, then how many there were: "3, 7, 9, ... (12 in all)".
std::string list_of(const std::vector<int>& v, std::size_t limit = 8);

// Runs of consecutive numbers as ranges, in the order given: ranges_text({0, 1, 2, 5, 7, 8}) == "0-2, 5, 7-8".
std::string ranges_text(const std::vector<int>& v);

// The words with `sep` between them: join({"a", "b"}, ", ") == "a, b".
std::string join(const std::vector<std::string>& words, const std::string& sep);

}  // namespace cudasync::report
