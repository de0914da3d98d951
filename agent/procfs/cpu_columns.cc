// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/cpu_columns.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {

absl::StatusOr<std::vector<int>> ParseCpuColumns(std::string_view header, std::string_view path) {
  std::vector<int> cpu_ids;
  std::string_view rest = header;
  for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
    std::optional<uint32_t> cpu;
    if (token.size() > 3 && token.substr(0, 3) == "CPU") cpu = ParseUint32(token.substr(3));
    if (!cpu.has_value() || *cpu > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
      return ParseError(
          path, 1, absl::StrCat("expected a header of CPUn columns, got \"", ToAbsl(token), "\""));
    }
    cpu_ids.push_back(static_cast<int>(*cpu));
  }
  if (cpu_ids.empty()) return ParseError(path, 1, "expected a header of CPUn columns");
  return cpu_ids;
}

}  // namespace nictune::procfs
