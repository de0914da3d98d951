// SPDX-License-Identifier: Apache-2.0
// /proc/stat: CPU time split per CPU in USER_HZ ticks. cpu lines carry 7 to 10 numbers by kernel
// age (steal 2.6.11, guest 2.6.24, guest_nice 2.6.33); fields a kernel does not print are 0.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

struct CpuTimes {
  int cpu = -1;  // -1 for the aggregate "cpu" line
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0,
           guest = 0, guest_nice = 0;
};

struct ProcStat {
  CpuTimes total;
  std::vector<CpuTimes> cpus;
  uint64_t interrupts_total = 0;      // the first number of the "intr" line
  uint64_t softirqs_total = 0;        // the first number of the "softirq" line
  bool softirq_line_present = false;  // kernels before 2.6.31 have no "softirq" line
  uint64_t boot_time_seconds = 0;     // the "btime" line: when the host booted, Unix seconds
};

absl::StatusOr<ProcStat> ParseProcStat(std::string_view text, std::string_view path = "/proc/stat");

}  // namespace nictune::procfs
