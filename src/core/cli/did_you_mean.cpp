#include "core/cli/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

namespace cudasync::cli {

namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring),
// case-insensitive.
std::size_t distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& names) {
  if (typed.empty() || typed.size() > 64) return "";
  const std::size_t limit = typed.size() <= 4 ? 1 : 2;
  std::string best;
  std::size_t best_d = limit + 1;
  for (const std::string& n : names) {
    if (n == typed) return "";
    const std::size_t d = distance(typed, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best_d <= limit ? best : "";
}

std::string did_you_mean_text(const std::string& typed, const std::vector<std::string>& names) {
  const std::string m = did_you_mean(typed, names);
  return m.empty() ? "" : " (did you mean " + m + "?)";
}

}  // namespace cudasync::cli
