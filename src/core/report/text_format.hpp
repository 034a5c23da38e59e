#pragma once
// Small text formats every lesson's sections use for numbers and lists, so that a figure reads the
// same in every lesson ("1,081,344", "0.690", "3, 7, ... (12 in all)").
#include <cstdint>
#include <string>
#include <vector>

namespace cudasync::report {

// v with `digits` digits after the point: fixed(0.6904, 3) == "0.690".
std::string fixed(double v, int digits);

// v through one printf conversion for a double ("%.3e", "%.17g"); for the formats fixed() cannot say.
std::string printf_number(const char* format, double v);

// Thousands separated by commas: grouped(1081344) == "1,081,344".
std::string grouped(std::uint64_t v);

// The first `limit` numbers, then how many there were: "3, 7, 9, ... (12 in all)".
std::string list_of(const std::vector<int>& v, std::size_t limit = 8);

}  // namespace cudasync::report
