// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/softnet_stat.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {
namespace {

// Column positions (0-based) as net/core/net-procfs.c prints them. Columns 3-7 were fastroute
// and column 8 (cpu_collision) has printed 0 since 4.x; they are kept only by position.
constexpr int kMinColumns = 9;
constexpr int kCpuCollision = 8;
constexpr int kReceivedRps = 9;
constexpr int kFlowLimitCount = 10;
constexpr int kBacklogLen = 11;
constexpr int kCpuIndex = 12;
constexpr int kInputQueueLen = 13;
constexpr int kProcessQueueLen = 14;
constexpr int kKnownColumns = 15;

std::optional<uint32_t> ColumnIfPresent(const std::array<uint32_t, kKnownColumns>& values,
                                        int columns, int index) {
  if (columns <= index) return std::nullopt;
  return values[static_cast<size_t>(index)];
}

}  // namespace

absl::StatusOr<std::vector<SoftnetRow>> ParseSoftnetStat(std::string_view text,
                                                         std::string_view path) {
  std::vector<SoftnetRow> rows;
  LineReader lines(text);
  std::string_view line;
  int first_row_columns = 0;
  while (lines.Next(line)) {
    std::array<uint32_t, kKnownColumns> values{};
    int columns = 0;
    std::string_view rest = line;
    for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
      const std::optional<uint32_t> value = ParseHexUint32(token);
      if (!value.has_value()) {
        return ParseError(
            path, lines.line_number(),
            absl::StrCat("column ", columns + 1, ": \"", ToAbsl(token), "\" is not a hex u32"));
      }
      // Columns past the known ones come from a newer kernel: counted, not kept.
      if (columns < kKnownColumns) values[static_cast<size_t>(columns)] = *value;
      ++columns;
    }
    if (columns < kMinColumns) {
      return ParseError(
          path, lines.line_number(),
          absl::StrCat("expected at least ", kMinColumns, " hex columns, got ", columns));
    }
    if (first_row_columns == 0) first_row_columns = columns;
    if (columns != first_row_columns) {
      return ParseError(
          path, lines.line_number(),
          absl::StrCat("has ", columns, " hex columns but line 1 has ", first_row_columns));
    }

    SoftnetRow row;
    row.columns = columns;
    row.processed = values[0];
    row.dropped = values[1];
    row.time_squeeze = values[2];
    row.cpu_collision = values[kCpuCollision];
    row.received_rps = ColumnIfPresent(values, columns, kReceivedRps);
    row.flow_limit_count = ColumnIfPresent(values, columns, kFlowLimitCount);
    row.backlog_len = ColumnIfPresent(values, columns, kBacklogLen);
    row.input_queue_len = ColumnIfPresent(values, columns, kInputQueueLen);
    row.process_queue_len = ColumnIfPresent(values, columns, kProcessQueueLen);
    // Before 5.10 the kernel prints no CPU index and skips offline CPUs, so the row number is
    // the CPU only when all CPUs are online; cpu_from_kernel tells the two apart.
    if (columns > kCpuIndex) {
      row.cpu = values[kCpuIndex];
      row.cpu_from_kernel = true;
    } else {
      row.cpu = static_cast<uint32_t>(rows.size());
    }
    rows.push_back(row);
  }
  if (rows.empty()) return ParseError(path, 1, "empty, expected one row per online CPU");
  return rows;
}

}  // namespace nictune::procfs
