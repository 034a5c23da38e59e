#include "core/litmus/litmus_sass.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/child_process.hpp"
#include "core/sanitizer_path.hpp"

namespace cudasync::litmus {

std::optional<std::string> find_nvdisasm(std::string& looked) { return find_cuda_tool("nvdisasm", looked); }

std::map<std::pair<std::string, int>, std::vector<std::string>> sass_by_line(const std::string& disassembly) {
  static const std::regex file_line(R"re(//## File "([^"]*)", line (\d+))re");
  static const std::regex instruction(R"(/\*[0-9a-fA-F]{4,}\*/\s+([^;]*);)");
  std::map<std::pair<std::string, int>, std::vector<std::string>> out;
  std::optional<std::pair<std::string, int>> at;
  std::istringstream in(disassembly);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind("//--", 0) == 0) at.reset();  // a section of its own: no longer the code's
    if (std::regex_search(line, m, file_line)) {
      // nvdisasm makes a relative name absolute with the compiler's folder ("/work/P0"): the
      // name's last component is the one #line gave.
      std::string name = m[1].str();
      if (const auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
      at = {name, std::stoi(m[2].str())};
      continue;
    }
    if (at && std::regex_search(line, m, instruction)) {
      std::string ins = m[1].str();
      while (!ins.empty() && ins.back() == ' ') ins.pop_back();
      const std::size_t first = ins.find_first_not_of(' ');
      if (first != std::string::npos) out[*at].push_back(ins.substr(first));
    }
  }
  return out;
}

std::string disassemble(const std::string& nvdisasm, const std::string& cubin, std::string& why) {
  const std::string file = make_temp_file("litmus", "cubin");
  {
    std::ofstream f(file, std::ios::binary);
    f << cubin;
  }
  ChildResult r;
  {
    ChildProcess child("/bin/sh", {"-c", "exec \"$0\" --print-line-info \"$1\" > \"$2\"", nvdisasm, file, ChildProcess::kOutToken},
                       std::chrono::seconds(20), "nvdisasm");
    r = child.finish();
  }
  std::remove(file.c_str());
  if (r.status != ChildResult::Status::exited || r.exit_code != 0) {
    why = "nvdisasm: " + r.describe();
    return "";
  }
  return r.output;
}

}  // namespace cudasync::litmus
