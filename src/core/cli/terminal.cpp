#include "core/cli/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace cudasync::cli {

int terminal_columns(int fd) {
  winsize ws{};
  return isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 ? ws.ws_col : 0;
}

int terminal_width() {
  if (const int columns = terminal_columns(STDOUT_FILENO)) return columns;
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
