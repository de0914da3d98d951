// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/softirqs.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "agent/procfs/cpu_columns.h"
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
  absl::StatusOr<std::vector<int>> cpu_ids = ParseCpuColumns(line, path);
  if (!cpu_ids.ok()) return cpu_ids.status();
  table.cpu_ids = *std::move(cpu_ids);
  const size_t cpu_count = table.cpu_ids.size();

  while (lines.Next(line)) {
    std::string_view rest = line;
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

std::string SoftirqVectorName(uint32_t vector) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
  if (vector < kNames.size()) return std::string(kNames[vector]);
  return std::to_string(vector);
}

const SoftirqRow* FindSoftirqRow(const SoftirqTable& table, uint32_t vector) {
  const std::string name = SoftirqVectorName(vector);
  for (const SoftirqRow& row : table.rows) {
    if (row.vector == name) return &row;
  }
  return nullptr;
}

std::optional<uint64_t> SoftirqCountOn(const SoftirqTable& table, const SoftirqRow& row, int cpu) {
  const auto it = std::find(table.cpu_ids.begin(), table.cpu_ids.end(), cpu);
  const auto index = static_cast<size_t>(it - table.cpu_ids.begin());
  if (it == table.cpu_ids.end() || index >= row.per_cpu.size()) return std::nullopt;
  return row.per_cpu[index];
}

}  // namespace nictune::procfs
