#pragma once
// The language a run prints in: English or Chinese. One per process (a command prints in one
// language), chosen once by the command line (`--lang`) or the locale (LC_ALL, LC_MESSAGES, LANG),
// and read by every catalog look-up (core/words/words.hpp). Ids, numbers and the JSON's shape never
// depend on it; titles, notes, legends and reasons do.
#include <optional>
#include <string_view>

namespace cudasync::words {

enum class Lang { en, zh };

const char* code(Lang lang);                                  // "en", "zh"
std::optional<Lang> parse_lang(std::string_view code);        // "en" / "zh"; nullopt otherwise
inline constexpr const char* kAcceptedLangs = "en, zh";

// The locale's choice, as POSIX orders the variables: the first of LC_ALL, LC_MESSAGES and LANG that
// is set and not empty decides; a value starting with "zh" (zh_CN.UTF-8, zh_TW, zh) is Chinese,
// anything else (C, POSIX, en_US.UTF-8, de_DE) English. Null pointers are unset variables.
Lang lang_from_locale(const char* lc_all, const char* lc_messages, const char* lang);
Lang lang_from_environment();  // the same, from this process's environment

// The process's language (English until set).
Lang language();
void set_language(Lang lang);

// Sets the language for a scope and restores the one before (tests, and a command that renders one
// thing in another language).
class LanguageScope {
 public:
  explicit LanguageScope(Lang lang) : before_(language()) { set_language(lang); }
  ~LanguageScope() { set_language(before_); }
  LanguageScope(const LanguageScope&) = delete;
  LanguageScope& operator=(const LanguageScope&) = delete;

 private:
  Lang before_;
};

}  // namespace cudasync::words
