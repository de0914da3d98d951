// SPDX-License-Identifier: Apache-2.0
#include "agent/log.h"

#include <unistd.h>

#include <string>

#include "driver/kernel_name.h"

namespace nictune::agent {

void Log(LogLevel level, std::string_view message) {
  // One write per line so that lines from concurrent threads never interleave.
  std::string line = "<" + std::to_string(static_cast<int>(level)) + ">";
  // journald stores a line that is not UTF-8 as a blob that `journalctl` does not show.
  const absl::string_view text(message.data(), message.size());
  if (driver::IsValidUtf8(text)) {
    line.append(message);
  } else {
    line.append(driver::ReplaceInvalidUtf8(text));
  }
  line.push_back('\n');
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;  // stderr gone: nothing better to do with a log line
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace nictune::agent
