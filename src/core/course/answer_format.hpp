#pragma once
// How a typed answer is read (course::AnswerFormat): one canonical form per kind, so "0x10",
// "16" and " 16 " are the same integer and "11,3" the same lanes as "3,11".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/course/exercise.hpp"

namespace cudasync::course {

// The canonical form of `typed`, or nullopt when it is not of the format's shape.
//   integer "0x1f" -> "31"; mask "65535" -> "0x0000ffff"; choice "Yes" -> "yes";
//   lanes "11, 3" -> "3,11", "0,1,2,3,8" -> "0-3,8"
std::optional<std::string> canonical(const AnswerFormat& format, std::string_view typed);

// What the format accepts, for a usage error (English in every language, as usage errors are):
// "a whole number (decimal, or hex as 0x1f)". An exercise shows it in the run's language from core's
// catalog (answer.accepts-<kind>, whose English is this).
std::string accepted(const AnswerFormat& format);

// The canonical lanes text of a set of whole numbers: {0,1,2,3,8} -> "0-3,8"; {} -> "none".
std::string lanes_text(std::vector<long long> lanes);

}  // namespace cudasync::course
