#pragma once
// The lesson texts (lessons/<lesson>/<lang>.md), embedded in the binary at build time.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudasync {

struct LessonText {
  const char* lesson;  // "warp-primitives"
  const char* lang;    // "en", "zh"
  const char* data;
  std::size_t size;
  std::string_view text() const { return {data, size}; }
};

const std::vector<LessonText>& lesson_texts();  // generated
std::optional<std::string_view> find_lesson_text(std::string_view lesson, std::string_view lang);

}  // namespace cudasync
