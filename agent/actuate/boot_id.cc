// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/boot_id.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "agent/procfs/read_file.h"

namespace nictune::actuate {

absl::StatusOr<std::string> ReadBootId(const std::string& path) {
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  if (!text.ok()) return text.status();
  std::string id(absl::StripAsciiWhitespace(*text));
  if (id.empty() || id.find_first_of(" \t\n") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected one boot id, got \"%s\"", path, absl::CEscape(*text)));
  }
  return id;
}

}  // namespace nictune::actuate
