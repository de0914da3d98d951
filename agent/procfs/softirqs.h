// SPDX-License-Identifier: Apache-2.0
// /proc/softirqs: per-CPU counts per softirq vector.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

struct SoftirqRow {
  std::string vector;  // "HI", "TIMER", "NET_TX", "NET_RX", ...
  std::vector<uint64_t> per_cpu;
};

struct SoftirqTable {
  std::vector<int> cpu_ids;
  std::vector<SoftirqRow> rows;
};

absl::StatusOr<SoftirqTable> ParseSoftirqs(std::string_view text,
                                           std::string_view path = "/proc/softirqs");

// The kernel's softirq vector names in enum order (HI = 0 ... RCU = 9), as /proc/softirqs prints
// them; other numbers come out as decimal.
std::string SoftirqVectorName(uint32_t vector);

// The networking vectors' numbers (NET_TX_SOFTIRQ, NET_RX_SOFTIRQ).
inline constexpr uint32_t kNetTxSoftirq = 2;
inline constexpr uint32_t kNetRxSoftirq = 3;

// The row of vector number `vector` (NET_RX = 3), found by its name; null when the table has none.
const SoftirqRow* FindSoftirqRow(const SoftirqTable& table, uint32_t vector);

// `row`'s count on CPU `cpu` (an id: offline CPUs have no column), when the table has it.
std::optional<uint64_t> SoftirqCountOn(const SoftirqTable& table, const SoftirqRow& row, int cpu);

}  // namespace nictune::procfs
