// SPDX-License-Identifier: Apache-2.0
// Which QueueObservations a device gets: one per rx queue when the measurements can tell the
// queues apart, else one for the whole device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/collect/queue_map.h"

namespace nictune::observe {

struct QueueGroup {
  std::string device;
  int queue = -1;                  // rx queue index; -1 = the whole device
  std::vector<uint32_t> irqs;      // the queue's vectors (all rx vectors for the whole device)
  std::vector<int> cpus;           // where those irqs are delivered; empty = unknown
  std::vector<uint32_t> napi_ids;  // empty = every NAPI instance of the device but these:
  std::vector<uint32_t> tx_only_napi_ids;  // instances the map ties to tx queues alone
  uint32_t rx_queues = 1;  // the rx (or combined) queues, each with its ring, the group covers
};

// The rx (and combined) queues of `device` in the bindings. A device with one rx queue gets that
// queue. Several queues are kept apart only when per_queue_napi_counts (the BPF NAPI probe runs)
// and each has its own NAPI instance: nothing else counts packets per queue (/sys/class/net
// statistics are per device). Otherwise, and for a device without mapped queues (veth, or no irq
// and no NAPI known), the whole device is one group.
std::vector<QueueGroup> GroupQueues(const std::vector<collect::QueueBinding>& bindings,
                                    const std::string& device, bool per_queue_napi_counts);

}  // namespace nictune::observe
