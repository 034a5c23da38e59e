#include "core/words/catalog.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace cudasync::words {

namespace {

bool is_word(std::string_view w) {
  if (w.empty() || w.front() == '-' || w.back() == '-') return false;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && w[i - 1] != '-');
    if (!ok) return false;
  }
  return true;
}

// The 1-based line of the first `"key"` in text, or 1.
int line_of(std::string_view text, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  const auto at = text.find(quoted);
  if (at == std::string_view::npos) return 1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Each {name} in text: its start, its length with the braces, and the name.
struct Placeholder {
  std::size_t at;
  std::size_t len;
  std::string name;
};

std::vector<Placeholder> scan(std::string_view text) {
  std::vector<Placeholder> out;
  for (std::size_t i = text.find('{'); i != std::string_view::npos; i = text.find('{', i + 1)) {
    const auto close = text.find('}', i + 1);
    if (close == std::string_view::npos) break;
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (is_word(name)) out.push_back({i, close - i + 1, std::string(name)});
  }
  return out;
}

}  // namespace

bool is_key(std::string_view key) {
  if (key.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    if (!is_word(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::vector<std::string> placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (const auto& p : scan(text))
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  return names;
}

Catalog parse_catalog(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number too large for any type
    throw CatalogError(file + ":1: not JSON: " + e.what());
  }
  if (!j.is_object()) throw CatalogError(file + ":1: the catalog is not an object; accepted: {\"key\": {\"en\": ..., \"zh\": ...}}");
  Catalog c;
  for (const auto& [key, entry] : j.items()) {
    const auto fail = [&](const std::string& what) {
      throw CatalogError(file + ":" + std::to_string(line_of(text, key)) + ": " + key + ": " + what);
    };
    if (!is_key(key)) fail("not a key; accepted: kebab-case words joined by dots (votes.ballot-about)");
    if (!entry.is_object()) fail("not an object; accepted: {\"en\": \"...\", \"zh\": \"...\"}");
    Entry e;
    for (const auto& [lang, words] : entry.items()) {
      if (lang != "en" && lang != "zh") fail("'" + lang + "' is no language; accepted: " + kAcceptedLangs);
      if (!words.is_string() || words.get<std::string>().empty()) fail(lang + ": not a sentence; accepted: a non-empty string");
      (lang == "en" ? e.en : e.zh) = words.get<std::string>();
    }
    if (e.en.empty() || e.zh.empty())
      fail(std::string("no ") + (e.en.empty() ? "en" : "zh") + " text; accepted: both en and zh, saying the same");
    auto en_names = placeholders(e.en);
    auto zh_names = placeholders(e.zh);
    std::sort(en_names.begin(), en_names.end());
    std::sort(zh_names.begin(), zh_names.end());
    if (en_names != zh_names) {
      std::string en_list, zh_list;
      for (const auto& n : en_names) en_list += (en_list.empty() ? "{" : ", {") + n + "}";
      for (const auto& n : zh_names) zh_list += (zh_list.empty() ? "{" : ", {") + n + "}";
      fail("en has placeholders [" + en_list + "], zh [" + zh_list + "]; accepted: the same in both");
    }
    c.emplace(key, std::move(e));
  }
  return c;
}

std::string fill(std::string_view text, const Args& args, std::string_view where) {
  std::string out;
  std::vector<bool> used(args.size(), false);
  std::size_t from = 0;
  for (const auto& p : scan(text)) {
    const auto it = std::find_if(args.begin(), args.end(), [&](const Arg& a) { return a.name == p.name; });
    if (it == args.end()) throw std::logic_error(std::string(where) + ": no value for {" + p.name + "}");
    used[static_cast<std::size_t>(it - args.begin())] = true;
    out.append(text, from, p.at - from);
    out += it->value;
    from = p.at + p.len;
  }
  out.append(text, from, std::string_view::npos);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!used[i]) throw std::logic_error(std::string(where) + ": {" + std::string(args[i].name) + "} is in no text");
  return out;
}

}  // namespace cudasync::words
