#pragma once
// The lesson texts (lessons/<lesson>/<lang>.md) and the kernel exercises' starter files, embedded in
// the binary at build time (cmake/embed_lessons.cmake).
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

// A kernel exercise's starter file (lessons/<lesson>/<name>.cu), embedded the same way.
struct LessonFile {
  const char* lesson;  // "cg-reduce"
  const char* name;    // "block_sum.cu"
  const char* data;
  std::size_t size;
  std::string_view text() const { return {data, size}; }
};

const std::vector<LessonFile>& lesson_starters();  // generated
std::optional<std::string_view> find_lesson_starter(std::string_view lesson, std::string_view name);

// Each lesson's manifest, lessons/<lesson>/lesson.json (core/course/manifest.hpp), embedded the same
// way; name is "lesson.json".
const std::vector<LessonFile>& lesson_manifests();  // generated
std::optional<std::string_view> find_lesson_manifest(std::string_view lesson);

// The word catalogs (core/words/catalog.hpp), embedded the same way: lessons/<lesson>/words.json,
// and src/core/words/words.json as lesson "core"; name is "words.json".
const std::vector<LessonFile>& lesson_catalogs();  // generated

}  // namespace cudasync
