// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/stat.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {
namespace {

// user nice system idle iowait irq softirq are printed by every kernel this agent supports;
// steal, guest and guest_nice came later.
constexpr size_t kMinCpuFields = 7;
constexpr size_t kKnownCpuFields = 10;

absl::Status ParseCpuLine(std::string_view label, std::string_view rest, int line_number,
                          std::string_view path, CpuTimes& times) {
  if (label.size() > 3) {
    const std::optional<uint32_t> cpu = ParseUint32(label.substr(3));
    if (!cpu.has_value() || *cpu > 1u << 20) {
      return ParseError(path, line_number,
                        absl::StrCat("\"", ToAbsl(label), "\" is not cpu or cpuN"));
    }
    times.cpu = static_cast<int>(*cpu);
  }
  std::array<uint64_t, kKnownCpuFields> fields{};
  size_t count = 0;
  for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
    const std::optional<uint64_t> value = ParseUint64(token);
    if (!value.has_value()) {
      return ParseError(path, line_number,
                        absl::StrCat(ToAbsl(label), " field ", count + 1, ": \"", ToAbsl(token),
                                     "\" is not a tick count"));
    }
    // Fields past guest_nice would come from a newer kernel: tolerated, not kept.
    if (count < kKnownCpuFields) fields[count] = *value;
    ++count;
  }
  if (count < kMinCpuFields) {
    return ParseError(path, line_number,
                      absl::StrCat(ToAbsl(label), ": expected ", kMinCpuFields, " to ",
                                   kKnownCpuFields, " tick counts, got ", count));
  }
  times.user = fields[0];
  times.nice = fields[1];
  times.system = fields[2];
  times.idle = fields[3];
  times.iowait = fields[4];
  times.irq = fields[5];
  times.softirq = fields[6];
  times.steal = fields[7];
  times.guest = fields[8];
  times.guest_nice = fields[9];
  return absl::OkStatus();
}

// "intr 177394 0 0 ..." and "softirq 133183 0 ...": only the leading total is kept.
absl::StatusOr<uint64_t> ParseLeadingTotal(std::string_view label, std::string_view rest,
                                           int line_number, std::string_view path) {
  const std::string_view token = NextToken(rest);
  const std::optional<uint64_t> total = ParseUint64(token);
  if (!total.has_value()) {
    return ParseError(
        path, line_number,
        absl::StrCat(ToAbsl(label), ": expected a total, got \"", ToAbsl(token), "\""));
  }
  return *total;
}

}  // namespace

absl::StatusOr<ProcStat> ParseProcStat(std::string_view text, std::string_view path) {
  ProcStat stat;
  bool saw_total = false;
  bool saw_intr = false;
  LineReader lines(text);
  std::string_view line;
  while (lines.Next(line)) {
    std::string_view rest = line;
    const std::string_view label = NextToken(rest);
    if (label.substr(0, 3) == "cpu") {
      CpuTimes times;
      if (absl::Status status = ParseCpuLine(label, rest, lines.line_number(), path, times);
          !status.ok()) {
        return status;
      }
      if (times.cpu < 0) {
        if (saw_total) return ParseError(path, lines.line_number(), "second aggregate cpu line");
        stat.total = times;
        saw_total = true;
      } else {
        stat.cpus.push_back(times);
      }
    } else if (label == "intr") {
      absl::StatusOr<uint64_t> total = ParseLeadingTotal(label, rest, lines.line_number(), path);
      if (!total.ok()) return total.status();
      stat.interrupts_total = *total;
      saw_intr = true;
    } else if (label == "softirq") {
      absl::StatusOr<uint64_t> total = ParseLeadingTotal(label, rest, lines.line_number(), path);
      if (!total.ok()) return total.status();
      stat.softirqs_total = *total;
      stat.softirq_line_present = true;
    } else if (label == "btime") {
      absl::StatusOr<uint64_t> boot = ParseLeadingTotal(label, rest, lines.line_number(), path);
      if (!boot.ok()) return boot.status();
      stat.boot_time_seconds = *boot;
    } else if (label.empty()) {
      return ParseError(path, lines.line_number(), "empty line");
    }
    // ctxt, processes, procs_running, procs_blocked and anything newer: not needed.
  }
  if (!saw_total) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(path), ": no aggregate \"cpu\" line in ",
                                                   lines.line_number(), " lines"));
  }
  if (!saw_intr) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(path), ": no \"intr\" line in ", lines.line_number(), " lines"));
  }
  return stat;
}

}  // namespace nictune::procfs
