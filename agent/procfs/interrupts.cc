// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/interrupts.h"

#include "absl/strings/str_cat.h"
#include "agent/procfs/cpu_columns.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"
#include "driver/kernel_name.h"

namespace nictune::procfs {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// What follows the counts of a numbered row: the chip, then (kernel 3.12+) the hwirq with the flow
// name glued to it ("1-edge"), then on GENERIC_IRQ_SHOW_LEVEL architectures "Level"/"Edge", then
// the action names separated by ", ". Older kernels glue the flow name to the chip
// ("IO-APIC-edge") and print no hwirq.
absl::Status ParseNumberedTail(std::string_view tail, int line_number, std::string_view path,
                               InterruptLine& row) {
  const std::string_view chip = NextToken(tail);
  if (chip.empty()) {
    return ParseError(path, line_number,
                      absl::StrCat("irq ", ToAbsl(row.id), ": missing the interrupt chip name"));
  }
  row.chip = driver::KernelNameText(ToAbsl(chip));
  std::string_view lookahead = tail;
  std::string_view token = NextToken(lookahead);
  if (!token.empty() && (IsDigit(token.front()) || token.front() == '-')) {
    row.hwirq.assign(token);
    tail = lookahead;
    token = NextToken(lookahead);
  }
  if (token == "Level" || token == "Edge") {
    row.trigger.assign(token);
    tail = lookahead;
    token = NextToken(lookahead);
    if (!token.empty() && token.front() == '-') {  // flow name printed after the trigger
      row.hwirq.append(token);
      tail = lookahead;
    }
  }
  row.actions = driver::KernelNameText(ToAbsl(TrimBlanks(tail)));
  return absl::OkStatus();
}

absl::Status ParseRow(std::string_view line, int line_number, int cpu_count, std::string_view path,
                      InterruptLine& row) {
  std::string_view rest = line;
  const std::string_view label = NextToken(rest);
  if (label.size() < 2 || label.back() != ':') {
    return ParseError(
        path, line_number,
        absl::StrCat("expected \"IRQ:\" or \"NAME:\" at the start, got \"", ToAbsl(label), "\""));
  }
  const std::string_view id = label.substr(0, label.size() - 1);
  row.id.assign(id);
  if (IsDigit(id.front())) {
    row.irq = ParseUint32(id);
    if (!row.irq.has_value()) {
      return ParseError(path, line_number,
                        absl::StrCat("irq number \"", ToAbsl(id), "\" is not a u32"));
    }
  }

  row.per_cpu.reserve(static_cast<size_t>(cpu_count));
  std::string_view after_counts = rest;
  while (static_cast<int>(row.per_cpu.size()) < cpu_count) {
    std::string_view lookahead = after_counts;
    const std::optional<uint64_t> count = ParseUint64(NextToken(lookahead));
    if (!count.has_value()) break;
    row.per_cpu.push_back(*count);
    row.total += *count;
    after_counts = lookahead;
  }
  const int counts = static_cast<int>(row.per_cpu.size());

  if (row.irq.has_value()) {
    if (counts != cpu_count) {
      return ParseError(path, line_number,
                        absl::StrCat("irq ", ToAbsl(id), ": expected ", cpu_count,
                                     " per-CPU counts, got ", counts));
    }
    return ParseNumberedTail(after_counts, line_number, path, row);
  }

  const std::string_view description = TrimBlanks(after_counts);
  if (counts == cpu_count) {
    row.actions = driver::KernelNameText(ToAbsl(description));
    return absl::OkStatus();
  }
  // ERR and MIS (x86), Err (arm64): one system-wide value and nothing else.
  if (counts == 1 && description.empty()) {
    row.per_cpu.clear();
    return absl::OkStatus();
  }
  return ParseError(
      path, line_number,
      absl::StrCat(ToAbsl(id), ": expected ", cpu_count, " per-CPU counts or a single total, got ",
                   counts, counts == 0 ? "" : " followed by text"));
}

}  // namespace

absl::StatusOr<InterruptTable> ParseInterrupts(std::string_view text, std::string_view path) {
  InterruptTable table;
  LineReader lines(text);
  std::string_view line;
  if (!lines.Next(line)) return ParseError(path, 1, "empty, expected a header of CPUn columns");
  absl::StatusOr<std::vector<int>> cpu_ids = ParseCpuColumns(line, path);
  if (!cpu_ids.ok()) return cpu_ids.status();
  table.cpu_ids = *std::move(cpu_ids);
  table.cpu_count = static_cast<int>(table.cpu_ids.size());

  while (lines.Next(line)) {
    InterruptLine row;
    if (absl::Status status = ParseRow(line, lines.line_number(), table.cpu_count, path, row);
        !status.ok()) {
      return status;
    }
    table.lines.push_back(std::move(row));
  }
  return table;
}

}  // namespace nictune::procfs
