#include "core/litmus/litmus_library.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace cudasync::litmus {

const std::vector<LibraryTest>& library() {
  static const std::vector<LibraryTest> tests = [] {
    std::string_view manifest;
    for (const auto& [name, text] : embedded_litmus_files())
      if (name == "library.json") manifest = text;
    const auto doc = nlohmann::json::parse(manifest);
    std::vector<LibraryTest> out;
    for (const auto& row : doc.at("tests")) {
      LibraryTest t;
      t.name = row.at("name").get<std::string>();
      t.outcome = row.at("outcome").get<std::string>();
      t.about_en = row.at("about").at("en").get<std::string>();
      t.about_zh = row.at("about").at("zh").get<std::string>();
      t.doc_zh = row.at("doc_zh").get<std::string>();
      if (row.contains("dat3m")) {
        const auto& d = row["dat3m"];
        t.dat3m = Dat3mCite{d.at("file").get<std::string>(), d.at("expected").get<int>(),
                            d.at("says").at("en").get<std::string>(), d.at("says").at("zh").get<std::string>()};
      }
      for (const auto& [name, text] : embedded_litmus_files())
        if (name == t.name + ".litmus") t.text = text;
      if (t.text.empty()) throw std::logic_error("litmus/library.json: no litmus/" + t.name + ".litmus");
      out.push_back(std::move(t));
    }
    return out;
  }();
  return tests;
}

const LibraryTest* find_library_test(std::string_view name) {
  for (const LibraryTest& t : library())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace cudasync::litmus
