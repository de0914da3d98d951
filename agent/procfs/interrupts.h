// SPDX-License-Identifier: Apache-2.0
// /proc/interrupts: per-CPU interrupt counts per irq line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

struct InterruptLine {
  std::string id;                 // "41", or a symbolic row such as "LOC", "NMI", "ERR", "MIS"
  std::optional<uint32_t> irq;    // set when id is a number
  std::vector<uint64_t> per_cpu;  // empty for rows that carry one total (ERR, MIS)
  uint64_t total = 0;             // sum of per_cpu, or the single value of ERR/MIS
  std::string chip;               // "PCI-MSIX-0000:00:04.0", "IO-APIC"; empty for symbolic rows
  std::string hwirq;              // "1-edge" (hwirq and flow name as printed); empty when absent
  std::string trigger;            // "Level"/"Edge" where the kernel prints it (arm64), else empty
  std::string actions;            // handlers ("virtio3-rx", "eth0, eth1"); text of symbolic rows
};

struct InterruptTable {
  int cpu_count = 0;         // columns in the header (CPU0 CPU1 ...)
  std::vector<int> cpu_ids;  // the numbers in the header, in order (offline CPUs are absent)
  std::vector<InterruptLine> lines;
};

absl::StatusOr<InterruptTable> ParseInterrupts(std::string_view text,
                                               std::string_view path = "/proc/interrupts");

}  // namespace nictune::procfs
