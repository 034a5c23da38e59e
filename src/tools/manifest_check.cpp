// Checks lessons/<lesson>/lesson.json and the word catalogs (lessons/<lesson>/words.json,
// src/core/words/words.json) when the build embeds them (src/CMakeLists.txt): a file that is not
// valid fails the build with file:line: key: what is wrong, and what is accepted.
//
//   cudasync_manifest_check lessons/lock/lesson.json lessons/threadfence/lesson.json
//   lessons/lock/lesson.json:14: exercises[1].answer: 'number' is no answer kind; accepted: integer, ...
//
// Besides the manifest's own form (core/course/manifest.hpp): its lesson is its folder's name, the
// catalog keys it names (its options' help, what its needs are for, its parts' titles and
// summaries, its questions) are in the folder's words.json, and a
// kernel exercise's files (its starter and harness) are in that folder's kernels/. Exit 0 when every file is valid, else 1.
#include <utility>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/course/manifest.hpp"
#include "core/words/catalog.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int bad = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path file = argv[i];
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << file.string() << ": cannot be read\n";
      ++bad;
      continue;
    }
    if (file.filename() == "words.json") {
      try {
        (void)cudasync::words::parse_catalog(text.str(), file.string());
      } catch (const cudasync::words::CatalogError& e) {
        std::cerr << e.what() << "\n";
        ++bad;
      }
      continue;
    }
    try {
      const auto m = cudasync::course::parse_manifest(text.str(), file.string(),
                                                       cudasync::course::ManifestOrigin::built_in);
      const std::string folder = file.parent_path().filename().string();
      if (m.lesson != folder)
        throw cudasync::course::ManifestError(file.string() + ":1: lesson: '" + m.lesson + "' in the folder of " +
                                              folder + "; accepted: \"" + folder + "\"");
      // Every option's help and what a text option accepts are keys of the lesson's own catalog.
      const fs::path catalog_file = file.parent_path() / "words.json";
      std::ifstream catalog_in(catalog_file, std::ios::binary);
      std::ostringstream catalog_text;
      if (catalog_in) catalog_text << catalog_in.rdbuf();
      const auto catalog = catalog_in ? cudasync::words::parse_catalog(catalog_text.str(), catalog_file.string())
                                      : cudasync::words::Catalog{};
      // A key the manifest names, directly or by a row's id, that the catalog must have.
      const auto in_catalog = [&](int line, const std::string& where, const std::string& key) {
        if (catalog_in && !key.empty() && catalog.find(key) == catalog.end())
          throw cudasync::course::ManifestError(file.string() + ":" + std::to_string(line) + ": " + where + ": '" + key +
                                                "' is no key of " + catalog_file.string());
      };
      for (const auto& o : m.options)
        for (const std::string* k : {&o.help, &o.accepted}) in_catalog(o.line, o.name, *k);
      for (const auto& [need, key] : m.needs) in_catalog(1, "needs." + need + ".for", key);
      for (const auto& p : m.predictions) in_catalog(1, "predictions." + p.part, "prediction." + p.part + ".question");
      if (m.parts.empty())
        throw cudasync::course::ManifestError(file.string() + ":1: parts: is missing: the lesson's parts, in the order "
                                              "they run ({\"id\": ..., \"reads\": [...]})");
      for (const auto& p : m.parts)
        for (const std::string& k : {"part." + p.id + ".title", "part." + p.id + ".summary"})
          in_catalog(p.line, "parts." + p.id, k);
      for (const auto& row : m.exercises) {
        if (row.exercise.kind != cudasync::course::Kind::kernel) continue;
        const auto& k = row.exercise.spec;
        for (const auto& [name, f] : {std::pair<const char*, std::string>{"file", k.file}, {"harness", k.harness}})
          if (!fs::exists(file.parent_path() / f) || f.rfind("kernels/", 0) != 0 || f.find('/', 8) != std::string::npos)
            throw cudasync::course::ManifestError(file.string() + ":" + std::to_string(row.line) + ": " + row.exercise.id +
                                                  ".kernel." + name + ": no file " + f + " in the lesson's kernels/ folder");
      }
    } catch (const cudasync::words::CatalogError& e) {
      std::cerr << e.what() << "\n";
      ++bad;
    } catch (const cudasync::course::ManifestError& e) {
      std::cerr << e.what() << "\n";
      ++bad;
    }
  }
  return bad == 0 ? 0 : 1;
}
