#include "agent/observe/sysfs_integer.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"

namespace nictune::observe {

absl::StatusOr<std::optional<int64_t>> ReadIntegerFile(const std::string& path) {
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  if (absl::IsNotFound(text.status())) return std::optional<int64_t>();
  if (!text.ok()) return text.status();
  const absl::string_view trimmed = absl::StripAsciiWhitespace(*text);
  int64_t value = 0;
  if (!absl::SimpleAtoi(trimmed, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected one integer, got \"", absl::CHexEscape(trimmed), "\""));
  }
  return std::optional<int64_t>(value);
}

}  // namespace nictune::observe
