// SPDX-License-Identifier: Apache-2.0
// The kernel's own map of NAPI instances, their interrupts and the queues they serve, as the
// netdev generic-netlink family (Linux 6.8+ for napi-get/queue-get) reports it. The agent sees it
// through this interface; tests inject fakes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::driver::netlink {

struct NapiInfo {
  uint32_t id = 0;
  int32_t ifindex = 0;
  std::optional<uint32_t> irq;                     // absent when the driver did not link one
  std::optional<uint32_t> pid;                     // the threaded poller's pid, when threaded
  std::optional<uint32_t> defer_hard_irqs;         // 6.13+
  std::optional<uint64_t> gro_flush_timeout_ns;    // 6.13+
  std::optional<uint64_t> irq_suspend_timeout_ns;  // 6.13+
  std::optional<uint32_t> threaded;                // 6.17+: 0 disabled, 1 enabled, 2 busy-poll
};

enum class NetdevQueueType { kRx, kTx, kOther };

struct NetdevQueue {
  uint32_t id = 0;  // queue index within its type
  NetdevQueueType type = NetdevQueueType::kOther;
  int32_t ifindex = 0;
  std::optional<uint32_t> napi_id;  // absent when no NAPI serves the queue (lo, veth without GRO)
};

class NetdevTopology {
 public:
  virtual ~NetdevTopology() = default;
  // Dumps every NAPI / queue of the namespace, or of one device when ifindex is set.
  // Unimplemented when the kernel lacks the family or command: callers then use /proc names.
  virtual absl::StatusOr<std::vector<NapiInfo>> ListNapis(std::optional<int32_t> ifindex) = 0;
  virtual absl::StatusOr<std::vector<NetdevQueue>> ListQueues(std::optional<int32_t> ifindex) = 0;
};

}  // namespace nictune::driver::netlink
