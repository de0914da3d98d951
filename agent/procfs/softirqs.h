// /proc/softirqs: per-CPU counts per softirq vector.
#pragma once

#include <cstdint>
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

}  // namespace nictune::procfs
