#include "agent/procfs/softirqs.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {

// The header lists every possible CPU (offline ones too): "                    CPU0       CPU1".
// Each row is "%12s:" and one count per header column. Vectors are taken by name, so vectors a
// newer kernel adds (or ones an older kernel lacks, such as BLOCK_IOPOLL) need no code.
absl::StatusOr<SoftirqTable> ParseSoftirqs(std::string_view text, std::string_view path) {
  SoftirqTable table;
  LineReader lines(text);
  std::string_view line;
  if (!lines.Next(line)) return ParseError(path, 1, "empty, expected a header of CPUn columns");
  std::string_view rest = line;
  for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
    std::optional<uint32_t> cpu;
    if (token.size() > 3 && token.substr(0, 3) == "CPU") cpu = ParseUint32(token.substr(3));
    if (!cpu.has_value() || *cpu > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
      return ParseError(
          path, 1, absl::StrCat("expected a header of CPUn columns, got \"", ToAbsl(token), "\""));
    }
    table.cpu_ids.push_back(static_cast<int>(*cpu));
  }
  if (table.cpu_ids.empty()) return ParseError(path, 1, "expected a header of CPUn columns");
  const size_t cpu_count = table.cpu_ids.size();

  while (lines.Next(line)) {
    rest = line;
    const std::string_view label = NextToken(rest);
    if (label.size() < 2 || label.back() != ':') {
      return ParseError(
          path, lines.line_number(),
          absl::StrCat("expected \"VECTOR:\" at the start, got \"", ToAbsl(label), "\""));
    }
    SoftirqRow row;
    row.vector.assign(label.substr(0, label.size() - 1));
    row.per_cpu.reserve(cpu_count);
    for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
      const std::optional<uint64_t> count = ParseUint64(token);
      if (!count.has_value()) {
        return ParseError(path, lines.line_number(),
                          absl::StrCat(row.vector, ": \"", ToAbsl(token), "\" is not a count"));
      }
      row.per_cpu.push_back(*count);
    }
    if (row.per_cpu.size() != cpu_count) {
      return ParseError(path, lines.line_number(),
                        absl::StrCat(row.vector, ": expected ", cpu_count, " per-CPU counts, got ",
                                     row.per_cpu.size()));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace nictune::procfs
