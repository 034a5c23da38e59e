#include "support/json_schema.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "support/run_cli.hpp"

namespace cudasync::test {

std::string schema_errors(const nlohmann::ordered_json& doc, const std::string& def) {
  char path[] = "/tmp/cudasync_schema_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("schema_errors: cannot create a temporary file");
  close(fd);
  {
    std::ofstream f(path);
    f << doc.dump();
  }
  const std::string command = std::string(CUDASYNC_PYTHON) + " " + source_dir() + "/tests/support/validate_json.py " +
                              source_dir() + "/schema/report-v2.json " + path + (def.empty() ? "" : " " + def);
  const CliResult r = run_shell(command + " 2>&1");
  std::remove(path);
  if (r.exit_code == 0) return "";
  return r.out.empty() ? "validate_json.py exited " + std::to_string(r.exit_code) : r.out;
}

}  // namespace cudasync::test
