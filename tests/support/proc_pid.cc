#include "tests/support/proc_pid.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::testing_support {
namespace {

absl::StatusOr<std::string> ReadProcFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    const int error_number = errno;
    return absl::NotFoundError(absl::StrCat("open ", path, ": ", std::strerror(error_number),
                                            " (errno ", error_number, ")"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<uint64_t> ResidentBytes(pid_t pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/status");
  absl::StatusOr<std::string> text = ReadProcFile(path);
  if (!text.ok()) return text.status();
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmRSS:")) continue;
    line = absl::StripAsciiWhitespace(line);
    uint64_t kib = 0;
    if (!absl::ConsumeSuffix(&line, " kB") ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &kib)) {
      return absl::DataLossError(absl::StrCat(path, ": VmRSS is not \"N kB\": ", line));
    }
    return kib * 1024;
  }
  return absl::NotFoundError(absl::StrCat(path, ": no VmRSS line"));
}

absl::StatusOr<bool> StillRunning(pid_t pid) {
  absl::StatusOr<std::string> stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat.ok()) {
    if (absl::IsNotFound(stat.status())) return false;
    return stat.status();
  }
  // "PID (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
  const size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) {
    return absl::DataLossError(absl::StrCat("/proc/", pid, "/stat: no state after the command"));
  }
  const char state = (*stat)[close + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace nictune::testing_support
