#pragma once
// A catalog of the sentences one lesson (or core) prints, by key, in English and Chinese side by
// side: lessons/<lesson>/words.json and src/core/words/words.json.
//
//   {
//     "votes.ballot.about": {
//       "en": "Bit n of the result is lane n's predicate, for the {count} lanes that call.",
//       "zh": "结果的第 n 位是第 n 条 lane 的谓词，只算调用的 {count} 条 lane。"
//     }
//   }
//
// A key is kebab-case words joined by dots. Every key has both languages, neither empty, with the
// same placeholders ({name}: kebab-case in braces; other braces are text). A catalog that breaks a
// rule is refused naming file:line: key: what, and what is accepted; the build checks every catalog
// so (src/tools/manifest_check.cpp).
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/words/language.hpp"

namespace cudasync::words {

struct CatalogError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Entry {
  std::string en;
  std::string zh;
  const std::string& in(Lang lang) const { return lang == Lang::zh ? zh : en; }
};

using Catalog = std::map<std::string, Entry, std::less<>>;

// Throws CatalogError "FILE:LINE: KEY: WHAT; accepted: ...".
Catalog parse_catalog(std::string_view text, const std::string& file);

// "votes.ballot" and "cost.table-title" are keys; "Votes", "a..b", "x." are not.
bool is_key(std::string_view key);

// The placeholder names in a text, in order of first appearance ("{lane} of {count}" -> lane, count).
std::vector<std::string> placeholders(std::string_view text);

// A placeholder's value. Numbers are written plainly (1081344); a sentence that shows a number
// formatted (1,081,344 or 0.925 x) gets it formatted by the caller (core/report/text_format.hpp).
struct Arg {
  Arg(std::string_view n, std::string v) : name(n), value(std::move(v)) {}
  Arg(std::string_view n, const char* v) : name(n), value(v) {}
  Arg(std::string_view n, std::string_view v) : name(n), value(v) {}
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>>>
  Arg(std::string_view n, Int v) : name(n), value(std::to_string(v)) {}

  std::string_view name;
  std::string value;
};
using Args = std::vector<Arg>;

// `text` with each {name} replaced by its Arg. A placeholder without an Arg, or an Arg that names no
// placeholder, is a programming error: std::logic_error naming `where` (the catalog and key).
std::string fill(std::string_view text, const Args& args, std::string_view where);

}  // namespace cudasync::words
