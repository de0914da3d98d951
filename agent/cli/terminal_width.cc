// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include "absl/strings/numbers.h"

namespace nictune::cli {

size_t TerminalWidth(int fd, const char* columns_env) {
  size_t columns = 0;
  if (columns_env != nullptr && absl::SimpleAtoi(columns_env, &columns) && columns >= 20 &&
      columns <= 1000) {
    return columns;
  }
  winsize size{};
  if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return kOffTerminalWidth;
}

}  // namespace nictune::cli
