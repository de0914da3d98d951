// /proc/net/softnet_stat: one row per online CPU, hex u32 counters that wrap. The number of
// columns grew with kernel versions (9 to 13); absent columns are reported as absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

struct SoftnetRow {
  uint32_t cpu = 0;  // from the index column when the kernel prints it, else the row number
  bool cpu_from_kernel = false;
  int columns = 0;
  uint32_t processed = 0;
  uint32_t dropped = 0;       // netdev_max_backlog overflow
  uint32_t time_squeeze = 0;  // budget or budget_usecs ran out with work left
  uint32_t cpu_collision = 0;
  std::optional<uint32_t> received_rps;
  std::optional<uint32_t> flow_limit_count;
  std::optional<uint32_t> backlog_len;  // input_pkt_queue + process_queue length (instantaneous)
};

absl::StatusOr<std::vector<SoftnetRow>> ParseSoftnetStat(
    std::string_view text, std::string_view path = "/proc/net/softnet_stat");

}  // namespace nictune::procfs
