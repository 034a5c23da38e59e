#pragma once
// Lists of whole numbers as the child processes write them into their answer files: "1,2,-1".
// Plain C++, no CUDA. Used by the named-barriers misuse child and the deadlock-demo barrier children;
// whole_number and parse_mask by the option checks.
//
//   join_numbers({1, 2, -1}) == "1,2,-1";  split_numbers("1,2,-1", v) -> true, v == {1, 2, -1}
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudasync {

std::string join_numbers(const std::vector<long long>& v);
std::string join_numbers(const std::vector<int>& v);
// false on an empty item or anything that is not a whole number; "" is the empty list.
bool split_numbers(const std::string& s, std::vector<long long>& out);

// The whole of `text` as one whole number, for an option's own check; nullopt for "", "lots",
// "12x" or a number past long long:  whole_number("-5") == -5, whole_number("1e3") == nullopt.
std::optional<long long> whole_number(const std::string& text);

// A 32-bit lane mask: "0x..." hex (up to 8 digits, any case), anything else decimal (not octal:
// "010" is ten), 0..4294967295; no sign, no spaces. parse_mask("0xffff0000") == 0xffff0000.
std::optional<std::uint32_t> parse_mask(const std::string& text);

}  // namespace cudasync
