// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/schedstat.h"

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {

absl::StatusOr<uint64_t> ParseSchedstatRunNs(std::string_view text, std::string_view path) {
  LineReader lines(text);
  std::string_view line;
  if (!lines.Next(line)) return ParseError(path, 1, "empty: expected run_ns wait_ns timeslices");
  std::string_view rest = line;
  int columns = 0;
  std::optional<uint64_t> run_ns;
  for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
    const std::optional<uint64_t> value = ParseUint64(token);
    if (!value.has_value()) {
      return ParseError(path, 1,
                        absl::StrCat("column ", columns + 1, ": \"", ToAbsl(token),
                                     "\" is not an unsigned integer"));
    }
    if (columns == 0) run_ns = value;
    ++columns;
  }
  if (columns != 3) {
    return ParseError(
        path, 1, absl::StrCat("expected 3 columns (run_ns wait_ns timeslices), got ", columns));
  }
  return *run_ns;
}

absl::StatusOr<uint64_t> ReadTaskRunNs(const std::string& proc_root, uint32_t pid) {
  const std::string path = absl::StrCat(proc_root, "/", pid, "/schedstat");
  absl::StatusOr<std::string> text = ReadFile(path, 4096);
  if (!text.ok()) return text.status();
  return ParseSchedstatRunNs(*text, path);
}

}  // namespace nictune::procfs
