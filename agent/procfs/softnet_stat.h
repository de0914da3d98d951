// SPDX-License-Identifier: Apache-2.0
// /proc/net/softnet_stat: one row per online CPU, hex u32 counters that wrap. The number of
// columns grew with kernel versions: 9 (up to 2.6.34), 10 (+received_rps, 2.6.35), 11
// (+flow_limit_count, 3.11), 13 (+backlog_len, cpu index, 5.10), 15 (+input and process queue
// lengths, 6.4). Absent columns are reported as absent; columns a newer kernel appends are ignored.
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
  std::optional<uint32_t> input_queue_len;    // input_pkt_queue length alone (6.4+)
  std::optional<uint32_t> process_queue_len;  // process_queue length alone (6.4+)
};

absl::StatusOr<std::vector<SoftnetRow>> ParseSoftnetStat(
    std::string_view text, std::string_view path = "/proc/net/softnet_stat");

}  // namespace nictune::procfs
