// The man page as the .deb installs it: `man -l` renders it without a troff warning, and it names
// every visible command and option of the CLI definition (`--cli-spec`), so a new one cannot be
// missing from it.
#include <gtest/gtest.h>

#include "package/package_tree.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync::test;
using namespace cudasync::test::package;

TEST(ManPage, ManRendersItWithoutWarnings) {
  const std::string page = deb_root() + "/usr/share/man/man1/cudasync.1";
  const CliResult r = run_shell("MANWIDTH=100 LC_ALL=C.UTF-8 MANPAGER=cat man -l " + shell_quoted(page));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_EQ(r.err, "") << "man/troff warnings";
  for (const char* heading : {"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "LESSONS", "EXIT STATUS"})
    EXPECT_NE(r.out.find(std::string("\n") + heading), std::string::npos) << heading;
  const CliResult w = run_shell("groff -man -ww -z " + shell_quoted(page));
  EXPECT_EQ(w.err, "") << "groff -ww";
}

TEST(ManPage, NamesEveryCommandAndOptionOfTheCliDefinition) {
  const CliResult r = run_shell("MANWIDTH=200 LC_ALL=C.UTF-8 MANPAGER=cat man -l " +
                                shell_quoted(deb_root() + "/usr/share/man/man1/cudasync.1"));
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  const auto spec = cli_spec();
  auto expect_options = [&](const nlohmann::json& options, const std::string& where) {
    for (const auto& o : options) {
      if (o["hidden"].get<bool>()) continue;
      for (const auto& l : o["long"])
        EXPECT_NE(r.out.find("--" + l.get<std::string>()), std::string::npos) << where << " --" << l;
      if (o["positional"].get<bool>()) {
        EXPECT_NE(r.out.find(o["name"].get<std::string>()), std::string::npos) << where;
      }
    }
  };
  expect_options(spec["options"], "program");
  for (const auto& c : spec["commands"]) {
    if (c["hidden"].get<bool>()) continue;
    EXPECT_NE(r.out.find(c["name"].get<std::string>()), std::string::npos) << c["name"];
    expect_options(c["options"], c["name"]);
    for (const auto& p : c["parts"]) EXPECT_NE(r.out.find(p["id"].get<std::string>()), std::string::npos) << p["id"];
  }
  EXPECT_EQ(r.out.find("--cli-spec"), std::string::npos) << "hidden options stay out of the page";
}
