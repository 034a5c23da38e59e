#include "core/words/language.hpp"

#include <atomic>
#include <cstdlib>

namespace cudasync::words {

namespace {
std::atomic<Lang> g_language{Lang::en};

bool set(const char* v) { return v != nullptr && *v != '\0'; }
}  // namespace

const char* code(Lang lang) { return lang == Lang::zh ? "zh" : "en"; }

std::optional<Lang> parse_lang(std::string_view c) {
  if (c == "en") return Lang::en;
  if (c == "zh") return Lang::zh;
  return std::nullopt;
}

Lang lang_from_locale(const char* lc_all, const char* lc_messages, const char* lang) {
  const char* chosen = set(lc_all) ? lc_all : set(lc_messages) ? lc_messages : set(lang) ? lang : nullptr;
  if (chosen == nullptr) return Lang::en;
  return std::string_view(chosen).substr(0, 2) == "zh" ? Lang::zh : Lang::en;
}

Lang lang_from_environment() {
  return lang_from_locale(std::getenv("LC_ALL"), std::getenv("LC_MESSAGES"), std::getenv("LANG"));
}

Lang language() { return g_language.load(std::memory_order_relaxed); }
void set_language(Lang lang) { g_language.store(lang, std::memory_order_relaxed); }

}  // namespace cudasync::words
