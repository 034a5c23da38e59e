#pragma once
// Where the package fixture (package_setup.cmake, the CTest fixture cudasync_package) left the
// install tree, the .deb and its unpacked scratch root, and small helpers the package tests share.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_cli.hpp"

namespace cudasync::test::package {

inline std::string work() { return CUDASYNC_PACKAGE_WORK; }
inline std::string install_tree() { return work() + "/install"; }
inline std::string deb_root() { return work() + "/root"; }
inline std::string deb_binary() { return deb_root() + "/usr/bin/cudasync"; }
inline std::string deb_path() {
  std::string p = read_file(work() + "/deb-path.txt");
  while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.pop_back();
  return p;
}

inline std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

// `cudasync --cli-spec` of the built binary.
inline nlohmann::json cli_spec() { return nlohmann::json::parse(run_cli("--cli-spec").out); }

// The visible commands of the spec, and the lessons among them.
inline std::vector<std::string> commands(const nlohmann::json& spec, bool lessons_only = false) {
  std::vector<std::string> out;
  for (const auto& c : spec["commands"])
    if (!c["hidden"].get<bool>() && (!lessons_only || c["lesson"].get<bool>())) out.push_back(c["name"]);
  return out;
}

inline std::set<std::string> starting_with(const std::vector<std::string>& words, const std::string& prefix) {
  std::set<std::string> out;
  for (const auto& w : words)
    if (w.rfind(prefix, 0) == 0) out.insert(w);
  return out;
}

}  // namespace cudasync::test::package
