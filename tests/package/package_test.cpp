// What a teacher installs: the .deb from `cpack -G DEB`, unpacked by `dpkg-deb -x` into a scratch
// root (the fixture, package_setup.cmake), and the tree of `cmake --install`. The binary there
// runs on a machine with only the NVIDIA driver: ldd lists nothing beyond libc, libm, libstdc++ and
// libgcc_s (libcuda.so.1 is loaded at run time); the .deb's Depends are exactly the packages of the
// libraries it links, its version is the project's, the driver is recommended; --version and
// doctor run from the scratch root; the install tree holds every piece. The man page as the .deb
// installs it: `man -l` renders it without a troff warning, and it names every visible command and
// option of the CLI definition (`--cli-spec`), so a new one cannot be missing from it.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <iostream>

#include "core/version.hpp"
#include "package/package_tree.hpp"
#include "support/cli_expect.hpp"

using namespace cudasync::test;
using namespace cudasync::test::package;

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// The libraries `ldd` lists, by file name ("libc.so.6"), the kernel's vdso and the loader left out.
std::set<std::string> ldd_libraries(const std::string& binary) {
  const CliResult r = run_shell("ldd " + shell_quoted(binary));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  std::set<std::string> out;
  for (const auto& line : lines(r.out)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    const auto slash = name.rfind('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
    if (name.rfind("linux-vdso", 0) == 0 || name.rfind("ld-linux", 0) == 0) continue;
    out.insert(name);
  }
  return out;
}

void expect_only_the_cxx_runtime(const std::string& binary) {
  const std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"};
  for (const auto& lib : ldd_libraries(binary))
    EXPECT_TRUE(allowed.count(lib)) << binary << " needs " << lib
                                    << " at run time; a lab machine has only libc, libm, libstdc++, libgcc_s";
}

std::string deb_field(const std::string& field) {
  const CliResult r = run_shell("dpkg-deb -f " + shell_quoted(deb_path()) + " " + field);
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  std::string v = r.out;
  while (!v.empty() && v.back() == '\n') v.pop_back();
  return v;
}

// "libc6 (>= 2.34), libgcc-s1 (>= 3.0)" -> {libc6, libgcc-s1}; alternatives "a | b" give both.
std::set<std::string> package_names(const std::string& field) {
  std::set<std::string> out;
  std::string word;
  bool in_version = false;
  for (const char c : field + ",") {
    if (c == '(') in_version = true;
    if (c == ')') in_version = false;
    if (in_version) continue;
    if (c == ',' || c == '|' || c == ' ') {
      if (!word.empty() && word != ")") out.insert(word);
      word.clear();
    } else if (c != ')') {
      word += c;
    }
  }
  return out;
}

// The Debian packages that own the libraries the binary lists as NEEDED (readelf -d), resolved
// through ldd to files and through dpkg -S to packages.
std::set<std::string> packages_of_needed(const std::string& binary) {
  std::set<std::string> out;
  const CliResult needed = run_shell("readelf -d " + shell_quoted(binary) + " | sed -n 's/.*Shared library: \\[\\(.*\\)\\]/\\1/p'");
  EXPECT_EQ(needed.exit_code, 0) << shown(needed);
  const CliResult ldd = run_shell("ldd " + shell_quoted(binary));
  for (const auto& lib : lines(needed.out)) {
    std::string path;
    for (const auto& line : lines(ldd.out)) {
      const auto pos = line.find(lib);
      if (pos == std::string::npos) continue;
      std::istringstream words(line);
      std::string w;
      while (words >> w)
        if (w[0] == '/') path = w;
    }
    EXPECT_FALSE(path.empty()) << lib << " not resolved by ldd:\n" << ldd.out;
    const CliResult owner =
        run_shell("dpkg -S " + shell_quoted(path) + " 2>/dev/null || dpkg -S \"$(readlink -f " + shell_quoted(path) + ")\"");
    EXPECT_EQ(owner.exit_code, 0) << lib << " at " << path << ": " << shown(owner);
    // dpkg -S also prints "diversion by libc6 from: ..." lines (Ubuntu's merged /usr): owners only.
    for (const auto& line : lines(owner.out))
      if (line.rfind("diversion by ", 0) != 0 && line.find(':') != std::string::npos)
        out.insert(line.substr(0, line.find(':')));
  }
  return out;
}

}  // namespace

TEST(Binary, LddListsOnlyLibcLibmLibstdcxxAndLibgccS) {
  expect_only_the_cxx_runtime(binary_path());
  expect_only_the_cxx_runtime(deb_binary());
}

TEST(Deb, VersionIsTheProjectsAndTheBinarySaysTheSame) {
  EXPECT_EQ(deb_field("Package"), "cudasync");
  const std::string version = deb_field("Version");
  const CliResult r = run_cli("--version");
  ASSERT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_EQ(r.out.rfind("cudasync " + version + " ", 0), 0u) << "deb " << version << ", binary: " << r.out;
  EXPECT_NE(deb_path().find("cudasync_" + version + "_"), std::string::npos) << deb_path();
}

TEST(Deb, DependsIsExactlyThePackagesOfTheLibrariesTheBinaryLinks) {
  const std::set<std::string> depends = package_names(deb_field("Depends"));
  EXPECT_EQ(depends, packages_of_needed(deb_binary())) << "Depends: " << deb_field("Depends");
  for (const char* banned : {"libspdlog1.10", "libfmt9"}) EXPECT_EQ(depends.count(banned), 0u) << banned;
}

TEST(Deb, RecommendsMd4cAndTheDriverThatProvidesLibcudaInACudaBuild) {
  const CliResult v = run_cli("--version");
  const bool cuda = v.out.find("CUDA: built in") != std::string::npos;
  const std::string recommends = deb_field("Recommends");
  // md4c renders explain's texts, loaded at run time like libcuda.so.1 (ldd does not list it).
  for (const char* md4c : {"libmd4c0", "libmd4c-html0"}) {
    EXPECT_TRUE(package_names(recommends).count(md4c)) << recommends;
    EXPECT_EQ(package_names(deb_field("Depends")).count(md4c), 0u) << md4c << " is recommended, not required";
  }
  if (!cuda) {
    EXPECT_EQ(package_names(recommends).count("libcuda1"), 0u) << "a model-only binary needs no driver";
    return;
  }
  EXPECT_TRUE(package_names(recommends).count("libcuda1")) << recommends;
  EXPECT_EQ(package_names(deb_field("Depends")).count("libcuda1"), 0u) << "the driver is recommended, not required";
}

TEST(Deb, RecommendsNvrtcAndSuggestsNcclByTheirPackageNamesInACudaBuild) {
  // The kernel exercises load libnvrtc.so.<major>, multi-gpu libnccl.so.2, at run time: ldd does not
  // show them, so the package says so.
  const CliResult v = run_cli("--version");
  const std::string recommends = deb_field("Recommends");
  if (v.out.find("CUDA: built in") == std::string::npos) {
    EXPECT_EQ(recommends.find("cuda-nvrtc-"), std::string::npos) << "a model-only binary compiles no kernel";
    return;
  }
  EXPECT_NE(recommends.find("cuda-nvrtc-13-"), std::string::npos) << recommends;
  if (cudasync::kNcclBuiltIn) {
    EXPECT_TRUE(package_names(deb_field("Suggests")).count("libnccl2")) << deb_field("Suggests");
  }
}

TEST(Deb, CarriesItsCopyrightAndACompressedChangelog) {
  const std::string doc = deb_root() + "/usr/share/doc/cudasync/";
  EXPECT_EQ(read_file(doc + "copyright").rfind("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/", 0), 0u);
  const CliResult c = run_shell("zcat " + shell_quoted(doc + "changelog.gz"));
  EXPECT_EQ(c.exit_code, 0) << shown(c);
  EXPECT_EQ(c.out.rfind("cudasync (" + deb_field("Version") + ")", 0), 0u) << c.out;
}

TEST(Deb, LintianFindsNoError) {
  if (run_shell("command -v lintian >/dev/null").exit_code != 0)
    GTEST_SKIP() << "lintian is not installed here (scripts/setup.sh --tests installs it)";
  // Errors fail; warnings are printed for whoever reads the log. Run as root (CI), lintian needs
  // --allow-root.
  const CliResult r = run_shell("lintian --allow-root --fail-on error --no-tag-display-limit " + shell_quoted(deb_path()));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  if (!r.out.empty()) std::cout << "lintian:\n" << r.out;
}

TEST(Deb, VersionAndDoctorRunFromTheUnpackedRoot) {
  const CliResult v = run_shell(shell_quoted(deb_binary()) + " --version");
  EXPECT_EQ(v.exit_code, 0) << shown(v);
  EXPECT_EQ(v.out.rfind("cudasync " + deb_field("Version"), 0), 0u) << v.out;
  // Exit 0 whenever the lessons can run: on CI there is no GPU, and they run on the model.
  const CliResult d = run_shell(shell_quoted(deb_binary()) + " doctor");
  EXPECT_EQ(d.exit_code, 0) << shown(d);
  EXPECT_NE(d.out.find("the lessons run on"), std::string::npos) << d.out;
  const CliResult j = run_shell(shell_quoted(deb_binary()) + " doctor --json");
  ASSERT_EQ(j.exit_code, 0) << shown(j);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["report"]["sections"]["lessons"]["tables"]["lessons"]["rows"].empty());
  const CliResult e = run_shell(shell_quoted(deb_binary()) + " explain warp-primitives");
  EXPECT_EQ(e.exit_code, 0) << shown(e);  // the lesson texts are inside the binary
}

TEST(Install, TheTreeHoldsEveryPiece) {
  const std::string usr_local = install_tree();  // a prefix other than /usr
  const std::string usr = deb_root() + "/usr";
  for (const std::string& prefix : {usr_local, usr}) {
    for (const char* piece : {"bin/cudasync", "share/man/man1/cudasync.1.gz", "share/bash-completion/completions/cudasync",
                              "share/fish/vendor_completions.d/cudasync.fish", "share/cudasync/schema/report-v2.json",
                              "share/doc/cudasync/README.md", "share/doc/cudasync/LICENSE", "share/doc/cudasync/NOTICE",
                              "share/doc/cudasync/measurements.md"})
      EXPECT_TRUE(exists(prefix + "/" + piece)) << prefix << "/" << piece;
    // Every lesson text of the source tree, in both languages.
    const CliResult texts = run_shell("cd " + shell_quoted(source_dir()) + " && ls lessons/*/*.md");
    ASSERT_FALSE(lines(texts.out).empty());
    for (const auto& t : lines(texts.out)) EXPECT_TRUE(exists(prefix + "/share/doc/cudasync/" + t)) << prefix << " " << t;
  }
  // zsh: Debian's zsh reads /usr/share/zsh/vendor-completions; other prefixes use site-functions.
  EXPECT_TRUE(exists(usr + "/share/zsh/vendor-completions/_cudasync"));
  EXPECT_TRUE(exists(usr_local + "/share/zsh/site-functions/_cudasync"));
  // The installed schema is the one the tests validate against.
  EXPECT_EQ(read_file(usr + "/share/cudasync/schema/report-v2.json"), read_file(source_dir() + "/schema/report-v2.json"));
}

TEST(ManPage, ManRendersItWithoutWarnings) {
  if (run_shell("command -v man >/dev/null && command -v groff >/dev/null").exit_code != 0)
    GTEST_SKIP() << "man or groff is not installed here (scripts/setup.sh installs man-db)";
  const std::string page = deb_root() + "/usr/share/man/man1/cudasync.1.gz";
  const CliResult r = run_shell("MANWIDTH=100 LC_ALL=C.UTF-8 MANPAGER=cat man -l " + shell_quoted(page));
  EXPECT_EQ(r.exit_code, 0) << shown(r);
  EXPECT_EQ(r.err, "") << "man/troff warnings";
  for (const char* heading : {"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "LESSONS", "EXIT STATUS"})
    EXPECT_NE(r.out.find(std::string("\n") + heading), std::string::npos) << heading;
  const CliResult w = run_shell("zcat " + shell_quoted(page) + " | groff -man -ww -z");
  EXPECT_EQ(w.err, "") << "groff -ww";
}

TEST(ManPage, NamesEveryCommandAndOptionOfTheCliDefinition) {
  if (run_shell("command -v man >/dev/null && command -v groff >/dev/null").exit_code != 0)
    GTEST_SKIP() << "man or groff is not installed here (scripts/setup.sh installs man-db)";
  const CliResult r = run_shell("MANWIDTH=200 LC_ALL=C.UTF-8 MANPAGER=cat man -l " +
                                shell_quoted(deb_root() + "/usr/share/man/man1/cudasync.1.gz"));
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
