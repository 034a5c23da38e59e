#include "core/words/words.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "core/lesson_texts.hpp"

namespace cudasync::words {

const Catalog& catalog(std::string_view name) {
  // Parsed on first use and kept: a run looks up hundreds of sentences in one or two catalogs.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Catalog>, std::less<>> parsed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = parsed.find(name); it != parsed.end()) return *it->second;
  for (const auto& f : lesson_catalogs()) {
    if (name != f.lesson) continue;
    auto c = std::make_unique<Catalog>(parse_catalog(f.text(), std::string(f.lesson) + "/words.json"));
    return *parsed.emplace(std::string(name), std::move(c)).first->second;
  }
  throw std::logic_error("no word catalog '" + std::string(name) + "'");
}

std::string say_in(Lang lang, std::string_view name, std::string_view key, const Args& args) {
  const Catalog& c = catalog(name);
  const auto it = c.find(key);
  const std::string where = std::string(name) + "/words.json: " + std::string(key);
  if (it == c.end()) throw std::logic_error(where + ": no such key");
  return fill(it->second.in(lang), args, where);
}

Entry say_both(std::string_view name, std::string_view key, const Args& args) {
  return {say_in(Lang::en, name, key, args), say_in(Lang::zh, name, key, args)};
}

std::string say_or(std::string_view name, std::string_view key, const std::string& fallback) {
  for (const auto& f : lesson_catalogs())
    if (name == f.lesson) {
      const Catalog& c = catalog(name);
      const auto it = c.find(key);
      return it == c.end() ? fallback : it->second.in(language());
    }
  return fallback;
}

std::string say(std::string_view name, std::string_view key, const Args& args) {
  const bool usage_error = key.substr(0, 6) == "usage.";
  return say_in(usage_error ? Lang::en : language(), name, key, args);
}

bool is_sentence(std::string_view name, std::string_view key, std::string_view text) {
  const Catalog& c = catalog(name);
  const auto it = c.find(key);
  if (it == c.end()) throw std::logic_error(std::string(name) + "/words.json: " + std::string(key) + ": no such key");
  const std::string& s = it->second.in(language());
  const auto names = placeholders(s);
  if (names.empty()) return text == s;
  const auto head = std::string_view(s).substr(0, s.find("{" + names.front() + "}"));
  return text.substr(0, head.size()) == head;
}

}  // namespace cudasync::words
