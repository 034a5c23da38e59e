#include "core/cli/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace cudasync::cli {

int terminal_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    try {
      const int n = std::stoi(c);
      if (n >= 40) return n;
    } catch (...) {
    }
  }
  return 80;
}

}  // namespace cudasync::cli
