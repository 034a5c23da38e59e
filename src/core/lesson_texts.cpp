#include "core/lesson_texts.hpp"

namespace cudasync {

std::optional<std::string_view> find_lesson_text(std::string_view lesson, std::string_view lang) {
  for (const auto& t : lesson_texts())
    if (lesson == t.lesson && lang == t.lang) return t.text();
  return std::nullopt;
}

std::optional<std::string_view> find_lesson_starter(std::string_view lesson, std::string_view name) {
  for (const auto& f : lesson_starters())
    if (lesson == f.lesson && name == f.name) return f.text();
  return std::nullopt;
}

std::optional<std::string_view> find_lesson_manifest(std::string_view lesson) {
  for (const auto& f : lesson_manifests())
    if (lesson == f.lesson) return f.text();
  return std::nullopt;
}

}  // namespace cudasync
