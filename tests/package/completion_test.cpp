// The shell completions as installed by the .deb (unpacked into a scratch root), loaded the way each
// shell finds them: bash through bash-completion's loader from share/bash-completion/completions,
// zsh through compinit from share/zsh/vendor-completions, fish from share/fish/vendor_completions.d.
// `cudasync <prefix><TAB>` gives every command with that prefix (for each lesson of
// `cudasync list --json`, its first two letters: `lo` gives lock and lockfree-barrier once both are
// built in); options and their values complete from the CLI definition (`--cli-spec`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "package/package_tree.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync::test;
using namespace cudasync::test::package;

namespace {

bool have(const char* program) { return run_shell(std::string("command -v ") + program + " >/dev/null").exit_code == 0; }

// The words bash completes for `words` (the last one being completed), after bash-completion's
// loader found the script under the scratch root. Plain bash (no bash-completion): the script is
// sourced from the same place.
std::set<std::string> bash_complete(const std::vector<std::string>& words) {
  std::string array;
  for (const auto& w : words) array += shell_quoted(w) + " ";
  const std::string share = deb_root() + "/usr/share";
  const std::string load =
      "if [ -r /usr/share/bash-completion/bash_completion ]; then "
      "  . /usr/share/bash-completion/bash_completion; XDG_DATA_DIRS=" + shell_quoted(share) + " __load_completion cudasync; "
      "else . " + shell_quoted(share + "/bash-completion/completions/cudasync") + "; fi; ";
  const CliResult r = run_shell("bash --norc --noprofile -c " +
                                shell_quoted(load + "complete -p cudasync >/dev/null || exit 9; COMP_WORDS=(" + array +
                                       "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                                       "; COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}; _cudasync; "
                                       "printf '%s\\n' \"${COMPREPLY[@]}\""));
  EXPECT_EQ(r.exit_code, 0) << "bash completion did not load: " << shown(r);
  const auto l = lines(r.out);
  return {l.begin(), l.end()};
}

std::set<std::string> zsh_complete(const std::string& line) {
  const std::string out = work() + "/zsh-out.txt";
  std::remove(out.c_str());
  const CliResult r = run_shell("timeout 30 zsh -f " + shell_quoted(source_dir() + "/tests/package/zsh_complete.zsh") + " " +
                                shell_quoted(deb_root() + "/usr/share/zsh/vendor-completions") + " " + shell_quoted(line) + " " +
                                shell_quoted(out));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  std::set<std::string> words;
  bool done = false;
  for (const auto& w : lines(read_file(out))) {
    if (w == "<done>") done = true;
    else words.insert(w);
  }
  EXPECT_TRUE(done) << "zsh did not finish completing " << line;
  return words;
}

std::set<std::string> fish_complete(const std::string& line) {
  // fish loads a command's completions only when the command is on PATH, as it is once installed.
  const CliResult r = run_shell(
      "PATH=" + shell_quoted(deb_root() + "/usr/bin") + ":$PATH HOME=" + shell_quoted(work()) + " fish --no-config -c " +
      shell_quoted("set fish_complete_path " + deb_root() + "/usr/share/fish/vendor_completions.d $fish_complete_path; complete -C " +
             shell_quoted(line)));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  std::set<std::string> out;
  for (const auto& l : lines(r.out)) out.insert(l.substr(0, l.find('\t')));
  return out;
}

std::vector<std::string> lessons_of_list() {
  const CliResult r = run_cli("list --json");
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  const nlohmann::json doc = nlohmann::json::parse(r.out);  // a temporary would die before the loop
  std::vector<std::string> out;
  for (const auto& row : doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"])
    out.push_back(row["lesson"]);
  return out;
}

// The prefixes to try: the first two letters of each lesson, and "wa" and "lo" (the issue's).
std::set<std::string> prefixes() {
  std::set<std::string> out = {"wa", "lo"};
  for (const auto& l : lessons_of_list()) out.insert(l.substr(0, 2));
  return out;
}

}  // namespace

TEST(BashCompletion, CommandPrefixesGiveEveryCommandWithThem) {
  const auto spec = cli_spec();
  const auto all = commands(spec);
  EXPECT_EQ(bash_complete({"cudasync", "wa"}), (std::set<std::string>{"warp-primitives"}));
  for (const auto& p : prefixes()) {
    const auto got = bash_complete({"cudasync", p});
    EXPECT_EQ(got, starting_with(all, p)) << "cudasync " << p << "<TAB>";
    for (const auto& lesson : starting_with(lessons_of_list(), p)) EXPECT_TRUE(got.count(lesson)) << p << " " << lesson;
  }
  const auto lessons = lessons_of_list();
  if (std::count(lessons.begin(), lessons.end(), "lock") && std::count(lessons.begin(), lessons.end(), "lockfree-barrier")) {
    EXPECT_EQ(bash_complete({"cudasync", "lo"}), (std::set<std::string>{"lock", "lockfree-barrier"}));
  }
}

TEST(BashCompletion, EveryOptionOfEveryCommandAndItsValues) {
  const auto spec = cli_spec();
  for (const auto& c : spec["commands"]) {
    if (c["hidden"].get<bool>()) continue;
    const auto offered = bash_complete({"cudasync", c["name"], "-"});
    for (const auto& o : c["options"]) {
      if (o["hidden"].get<bool>() || o["positional"].get<bool>()) continue;
      for (const auto& l : o["long"]) EXPECT_TRUE(offered.count("--" + l.get<std::string>())) << c["name"] << " --" << l;
      if (!o.contains("values") || o["long"].empty()) continue;
      const auto values = bash_complete({"cudasync", c["name"], "--" + o["long"][0].get<std::string>(), ""});
      for (const auto& v : o["values"]) EXPECT_TRUE(values.count(v)) << c["name"] << " --" << o["long"][0] << " " << v;
    }
    for (const auto& o : spec["options"]) {  // the program's options, after a command too
      if (o["hidden"].get<bool>()) continue;
      for (const auto& l : o["long"]) EXPECT_TRUE(offered.count("--" + l.get<std::string>())) << c["name"] << " --" << l;
    }
  }
  EXPECT_EQ(bash_complete({"cudasync", "--backend", "g"}), (std::set<std::string>{"gpu"}));
  const auto parts = bash_complete({"cudasync", "warp-primitives", "--part", "shfl,shfl-d"});
  EXPECT_EQ(parts, (std::set<std::string>{"shfl,shfl-down"}));
  EXPECT_TRUE(bash_complete({"cudasync", "explain", ""}).count("warp-primitives"));
  EXPECT_EQ(bash_complete({"cudasync", "--cli"}), std::set<std::string>{}) << "hidden options stay hidden";
}

namespace {

// What each shell must complete, `complete` giving the candidates of one command line.
void expect_shell_completes(const std::function<std::set<std::string>(const std::string&)>& complete) {
  const auto all = commands(cli_spec());
  for (const auto& p : prefixes()) EXPECT_EQ(complete("cudasync " + p), starting_with(all, p)) << p;
  EXPECT_TRUE(complete("cudasync warp-primitives --wi").count("--width"));
  EXPECT_EQ(complete("cudasync --backend "), (std::set<std::string>{"auto", "gpu", "model"}));
}

}  // namespace

TEST(ZshCompletion, LoadsFromVendorCompletionsAndCompletes) {
  if (!have("zsh")) GTEST_SKIP() << "zsh is not installed (scripts/setup.sh installs it)";
  expect_shell_completes(zsh_complete);
}

TEST(FishCompletion, LoadsFromVendorCompletionsAndCompletes) {
  if (!have("fish")) GTEST_SKIP() << "fish is not installed (scripts/setup.sh installs it)";
  expect_shell_completes(fish_complete);
}
