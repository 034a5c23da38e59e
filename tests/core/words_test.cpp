// The word catalogs: their form (both languages, the same placeholders, keys that are ids), how a
// sentence is filled, how the locale chooses the language, and every embedded catalog.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/lesson_texts.hpp"
#include "core/words/catalog.hpp"
#include "core/words/language.hpp"
#include "core/words/words.hpp"

namespace cudasync::words {
namespace {

std::string refusal(const std::string& text) {
  try {
    (void)parse_catalog(text, "lessons/x/words.json");
  } catch (const CatalogError& e) {
    return e.what();
  }
  return "";
}

TEST(WordCatalog, ReadsBothLanguagesByKey) {
  const Catalog c = parse_catalog(R"({
  "votes.ballot-about": {"en": "Bit n of {count} lanes.", "zh": "{count} 条 lane 的第 n 位。"}
})",
                                  "f");
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c.at("votes.ballot-about").in(Lang::en), "Bit n of {count} lanes.");
  EXPECT_EQ(c.at("votes.ballot-about").in(Lang::zh), "{count} 条 lane 的第 n 位。");
}

TEST(WordCatalog, RefusesAKeyInOneLanguageOnlyNamingFileLineAndKey) {
  const std::string e = refusal("{\n  \"a.b\": {\"en\": \"x\", \"zh\": \"x\"},\n  \"only-en\": {\"en\": \"x\"}\n}");
  EXPECT_EQ(e, "lessons/x/words.json:3: only-en: no zh text; accepted: both en and zh, saying the same");
}

TEST(WordCatalog, RefusesDifferentPlaceholders) {
  const std::string e = refusal(R"({"k": {"en": "{lane} of {count}", "zh": "{count} 中的 {thread}"}})");
  EXPECT_NE(e.find("k: en has placeholders [{count}, {lane}], zh [{count}, {thread}]"), std::string::npos) << e;
}

TEST(WordCatalog, RefusesBadKeysLanguagesAndEmptyText) {
  EXPECT_NE(refusal(R"({"Votes": {"en": "x", "zh": "x"}})").find("Votes: not a key"), std::string::npos);
  EXPECT_NE(refusal(R"({"a..b": {"en": "x", "zh": "x"}})").find("not a key"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": {"en": "x", "zh": "x", "fr": "x"}})").find("'fr' is no language; accepted: en, zh"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"a": {"en": "", "zh": "x"}})").find("en: not a sentence"), std::string::npos);
  EXPECT_NE(refusal(R"({"a": "x"})").find("a: not an object"), std::string::npos);
  EXPECT_NE(refusal("[1]").find("not an object"), std::string::npos);
  EXPECT_NE(refusal("{").find(":1: not JSON"), std::string::npos);
}

TEST(WordCatalog, KeysAreKebabWordsJoinedByDots) {
  EXPECT_TRUE(is_key("votes.ballot-about"));
  EXPECT_TRUE(is_key("lane-31-left"));
  EXPECT_FALSE(is_key(""));
  EXPECT_FALSE(is_key("x."));
  EXPECT_FALSE(is_key(".x"));
  EXPECT_FALSE(is_key("a--b"));
  EXPECT_FALSE(is_key("a_b"));
}

TEST(WordFill, ReplacesEachPlaceholderAndLeavesOtherBraces) {
  EXPECT_EQ(fill("{n} of {n} lanes; if (x) { y(); }", {{"n", 32}}, "w"), "32 of 32 lanes; if (x) { y(); }");
  EXPECT_EQ(placeholders("{lane} of {count}, {lane}"), (std::vector<std::string>{"lane", "count"}));
}

TEST(WordFill, AMissingOrUnusedValueIsAProgrammingError) {
  EXPECT_THROW((void)fill("{n} lanes", {}, "w"), std::logic_error);
  EXPECT_THROW((void)fill("lanes", {{"n", 1}}, "w"), std::logic_error);
}

TEST(Language, TheFirstSetLocaleVariableDecides) {
  EXPECT_EQ(lang_from_locale(nullptr, nullptr, nullptr), Lang::en);
  EXPECT_EQ(lang_from_locale(nullptr, nullptr, "zh_CN.UTF-8"), Lang::zh);
  EXPECT_EQ(lang_from_locale(nullptr, "", "zh_TW"), Lang::zh);
  EXPECT_EQ(lang_from_locale(nullptr, "en_US.UTF-8", "zh_CN.UTF-8"), Lang::en);
  EXPECT_EQ(lang_from_locale("C", nullptr, "zh_CN.UTF-8"), Lang::en);
  EXPECT_EQ(lang_from_locale("zh_CN.UTF-8", "en_US.UTF-8", nullptr), Lang::zh);
  EXPECT_EQ(lang_from_locale(nullptr, nullptr, "de_DE.UTF-8"), Lang::en);
  EXPECT_EQ(parse_lang("zh"), Lang::zh);
  EXPECT_EQ(parse_lang("cn"), std::nullopt);
}

TEST(Words, EveryEmbeddedCatalogIsValid) {
  ASSERT_FALSE(lesson_catalogs().empty());
  bool has_core = false;
  for (const auto& f : lesson_catalogs()) {
    has_core = has_core || std::string(f.lesson) == "core";
    EXPECT_NO_THROW((void)catalog(f.lesson)) << f.lesson;
    EXPECT_FALSE(catalog(f.lesson).empty()) << f.lesson;
  }
  EXPECT_TRUE(has_core);
}

TEST(Words, SaysInTheProcessLanguage) {
  EXPECT_EQ(say_in(Lang::en, "core", "check.gpu-agrees", {{"what", "every lane"}}),
            "GPU agrees with the reference model: every lane");
  {
    const LanguageScope zh(Lang::zh);
    EXPECT_EQ(core("check.gpu-agrees", {{"what", "x"}}), "GPU 与参考模型一致：x");
  }
  EXPECT_EQ(language(), Lang::en);
  EXPECT_THROW((void)core("no.such-key"), std::logic_error);
  EXPECT_THROW((void)say("no-such-lesson", "a"), std::logic_error);
}

// A usage error reads the same in every language (option, value, "accepted: ..."), as CLI11's own.
TEST(Words, AUsageErrorIsSaidInEnglishInEveryLanguage) {
  const LanguageScope zh(Lang::zh);
  const std::string e = say("named-barriers", "usage.id-range", {{"id", 16}});
  EXPECT_EQ(e, say_in(Lang::en, "named-barriers", "usage.id-range", {{"id", 16}}));
  EXPECT_NE(e.find("accepted: ids 0..15"), std::string::npos) << e;
  EXPECT_NE(say("named-barriers", "part.bar-sync.summary"), say_in(Lang::en, "named-barriers", "part.bar-sync.summary"));
}

TEST(Words, KnowsItsOwnSentencesWhateverFillsThem) {
  EXPECT_TRUE(is_sentence("core", "check.gpu-agrees", "GPU agrees with the reference model: every lane"));
  EXPECT_FALSE(is_sentence("core", "check.gpu-agrees", "GPU disagrees"));
  EXPECT_TRUE(is_sentence("core", "table.needs-gpu-legend", "needs a GPU: this run had none"));
  EXPECT_FALSE(is_sentence("core", "table.needs-gpu-legend", "needs a GPU: this run had none, and more"));
  {
    const LanguageScope zh(Lang::zh);
    EXPECT_TRUE(is_sentence("core", "check.gpu-agrees", "GPU 与参考模型一致：x"));
    EXPECT_FALSE(is_sentence("core", "check.gpu-agrees", "GPU agrees with the reference model: x"));
  }
  EXPECT_THROW((void)is_sentence("core", "no.such-key", ""), std::logic_error);
}

}  // namespace
}  // namespace cudasync::words
