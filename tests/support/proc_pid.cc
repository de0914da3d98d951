// SPDX-License-Identifier: Apache-2.0
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

absl::StatusOr<std::string> StatusField(pid_t pid, absl::string_view field) {
  const std::string path = absl::StrCat("/proc/", pid, "/status");
  absl::StatusOr<std::string> text = ReadProcFile(path);
  if (!text.ok()) return text.status();
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (!absl::ConsumePrefix(&line, field) || !absl::ConsumePrefix(&line, ":")) continue;
    return std::string(absl::StripAsciiWhitespace(line));
  }
  return absl::NotFoundError(absl::StrCat(path, ": no ", field, " line"));
}

absl::StatusOr<uint64_t> ResidentBytes(pid_t pid) {
  absl::StatusOr<std::string> field = StatusField(pid, "VmRSS");
  if (!field.ok()) return field.status();
  absl::string_view text = *field;
  uint64_t kib = 0;
  if (!absl::ConsumeSuffix(&text, " kB") ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &kib)) {
    return absl::DataLossError(
        absl::StrCat("/proc/", pid, "/status: VmRSS is not \"N kB\": ", *field));
  }
  return kib * 1024;
}

absl::StatusOr<uint64_t> CapabilitySet(pid_t pid, absl::string_view set) {
  absl::StatusOr<std::string> field = StatusField(pid, set);
  if (!field.ok()) return field.status();
  uint64_t mask = 0;
  if (!absl::SimpleHexAtoi(*field, &mask)) {
    return absl::DataLossError(
        absl::StrCat("/proc/", pid, "/status: ", set, " is not hexadecimal: ", *field));
  }
  return mask;
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
