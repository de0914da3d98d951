// SPDX-License-Identifier: Apache-2.0
// Coalescing (ethtool -C) and deferral (sysfs napi_defer_hard_irqs, gro_flush_timeout) are set per
// device, while the policies judge each queue by its own sockets. A device gets the settings of
// its queue that needs the shortest interval: any longer one would let that queue's sockets
// overflow.
#pragma once

#include <string>
#include <vector>

#include "tuner/recommendation.h"

namespace nictune::tuner {

// The coalescing and deferral recommendations the policies made for one queue.
struct QueueRecommendations {
  std::string device;
  std::string queue;  // QueueTarget(): "eth0 rx 3", or "eth0" for the whole device
  std::vector<Recommendation> recommendations;
};

// One set per device, in the order the devices first appear: the queue with the lowest
// recommended rx-usecs (else gro_flush_timeout; else the first) wins, its recommendations target
// the device (scope device) and, when the device has several queues, their formula names the
// queue and how many there were.
std::vector<Recommendation> StrictestQueuePerDevice(std::vector<QueueRecommendations> queues);

}  // namespace nictune::tuner
