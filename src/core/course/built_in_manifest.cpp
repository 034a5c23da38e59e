#include "core/course/built_in_manifest.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/lesson_texts.hpp"

namespace cudasync::course {

const Manifest& built_in_manifest(std::string_view lesson) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const Manifest>, std::less<>> parsed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = parsed.find(lesson); it != parsed.end()) return *it->second;
  const auto text = find_lesson_manifest(lesson);
  const std::string file = "lessons/" + std::string(lesson) + "/lesson.json";
  if (!text) throw std::logic_error("no " + file + " is embedded");
  auto m = std::make_unique<const Manifest>(parse_manifest(*text, file, ManifestOrigin::built_in));
  if (m->lesson != lesson) throw std::logic_error(file + " names the lesson '" + m->lesson + "'");
  return *parsed.emplace(std::string(lesson), std::move(m)).first->second;
}

}  // namespace cudasync::course
