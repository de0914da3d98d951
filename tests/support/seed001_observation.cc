// SPDX-License-Identifier: Apache-2.0
#include "tests/support/seed001_observation.h"

namespace nictune::testing_support {

tuner::Observation Seed001Observation() {
  constexpr uint64_t kRate = kSeed001PacketsPerSecond;
  tuner::Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  tuner::QueueObservation q;
  q.device = "eth0";
  q.queue = 0;
  q.sockets.push_back({.name = "udp 0.0.0.0:12865",
                       .packets = kRate * 10,
                       .truesize_mean_bytes = 2994,
                       .truesize_p99_bytes = 2994,
                       .rcvbuf_bytes = 212992,
                       .peak_fill = 1.0,
                       .drops = 4'000'000});
  q.rx_packets = kRate * 10;
  q.interrupts = 80'000;
  q.polls = q.interrupts;
  q.rx_work = q.rx_packets;
  q.drops.socket = 4'000'000;
  q.cpu = {0.02, 0.30, 0.40, 0.20};
  q.interrupt_cost_s = 2e-6;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.adaptive_rx_supported = true;
  q.coalesce.adaptive_rx = true;
  q.coalesce.rx_usecs = 1;
  q.coalesce.rx_usecs_max = 1022;
  q.coalesce.rx_ring_size = 512;
  obs.queues.push_back(q);
  return obs;
}

}  // namespace nictune::testing_support
