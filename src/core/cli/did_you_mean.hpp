#pragma once
// The name a mistyped word was most likely meant to be: the nearest of `names` by edit distance
// (insertions, deletions, substitutions and swaps of two neighbours each count one), when it is
// near enough to be a typo: at most 1 for words of up to 4 characters, 2 above. "" when none is.
//
//   did_you_mean("explian", {"explain", "exercise"}) == "explain"
//   did_you_mean("warp-primitive", lessons) == "warp-primitives"
#include <string>
#include <vector>

namespace cudasync::cli {

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& names);

// " (did you mean warp-primitives?)" or "".
std::string did_you_mean_text(const std::string& typed, const std::vector<std::string>& names);

}  // namespace cudasync::cli
