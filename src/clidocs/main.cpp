// cudasync-clidocs --binary <cudasync> --out <dir>: runs `<cudasync> --cli-spec` and writes
// <dir>/cli-spec.json, <dir>/<program>.1 (man page), <dir>/<program>.bash, <dir>/_<program> (zsh)
// and <dir>/<program>.fish. `--spec FILE` reads a spec from a file instead. Run at build time by
// cmake/cli_docs.cmake.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "clidocs/clidocs.hpp"

namespace {

std::string run(const std::string& binary) {
  std::string cmd = "'";
  for (const char c : binary) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
  cmd += "' --cli-spec";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + binary);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) throw std::runtime_error(binary + " --cli-spec failed");
  return out;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  std::string binary, spec_file, out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--binary") binary = argv[i + 1];
    else if (a == "--spec") spec_file = argv[i + 1];
    else if (a == "--out") out = argv[i + 1];
  }
  if (out.empty() || binary.empty() == spec_file.empty()) {
    std::cerr << "usage: cudasync-clidocs (--binary CUDASYNC | --spec FILE) --out DIR\n";
    return 2;
  }
  try {
    std::string text;
    if (!binary.empty()) {
      text = run(binary);
    } else {
      std::ifstream f(spec_file);
      std::ostringstream s;
      s << f.rdbuf();
      text = s.str();
    }
    const auto spec = cudasync::clidocs::parse_spec(nlohmann::json::parse(text));
    write(out + "/cli-spec.json", text);
    write(out + "/" + spec.program + ".1", cudasync::clidocs::man_page(spec));
    write(out + "/" + spec.program + ".bash", cudasync::clidocs::bash_completion(spec));
    write(out + "/_" + spec.program, cudasync::clidocs::zsh_completion(spec));
    write(out + "/" + spec.program + ".fish", cudasync::clidocs::fish_completion(spec));
  } catch (const std::exception& e) {
    std::cerr << "cudasync-clidocs: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
