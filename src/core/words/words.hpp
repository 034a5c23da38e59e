#pragma once
// What a lesson or a command prints, in the run's language: the sentence under a key of an embedded
// catalog (core/words/catalog.hpp), with its placeholders filled.
//
//   words::say("warp-primitives", "votes.ballot-about")
//   words::say("core", "check.gpu-agrees", {{"what", "every lane"}})
//
// Each lesson wraps this in its own `say(key, args)` naming its catalog, so its code reads
// `s.paragraph(say("votes.ballot-about"))`. A key that is in no catalog is a programming error
// (std::logic_error): the tests run every part in both languages, and a test checks every key the
// code names against the catalogs.
#include <string>
#include <string_view>

#include "core/words/catalog.hpp"
#include "core/words/language.hpp"

namespace cudasync::words {

// Keys under "usage." are usage errors (exit 2): they are said in English in every language, as
// CLI11's own refusals are, so that every refusal reads the same way (the option, the value, and
// "accepted: ..."), can be searched for, and a teacher can read a student's. Their Chinese stays in
// the catalog beside them.
std::string say(std::string_view catalog, std::string_view key, const Args& args = {});
std::string say_in(Lang lang, std::string_view catalog, std::string_view key, const Args& args = {});
// The sentence in both languages: a reason found before the run's language is known, or said in
// English in the JSON and in the run's language on the screen (GpuProbe::reason).
Entry say_both(std::string_view catalog, std::string_view key, const Args& args = {});

// `key` of catalog `name` when the catalog exists and has it, else `fallback`: a lesson's title
// ("lesson.title"), which its catalog may give in both languages.
std::string say_or(std::string_view catalog, std::string_view key, const std::string& fallback);

// Whether `text` is the sentence of `key` in the run's language, whatever its placeholders were
// filled with: it starts with the sentence's words before the first placeholder (is all of it when
// the sentence has none). For reading a verdict back from a report, as --predict does.
bool is_sentence(std::string_view catalog, std::string_view key, std::string_view text);

// The embedded catalog `name` ("core", or a lesson's id), parsed once; std::logic_error when none.
const Catalog& catalog(std::string_view name);

// core's catalog: the words the renderers and the shared checks print.
inline std::string core(std::string_view key, const Args& args = {}) { return say("core", key, args); }

}  // namespace cudasync::words
