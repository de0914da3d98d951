// SPDX-License-Identifier: Apache-2.0
#include "tuner/cpu_pressure.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "tuner/queue_target.h"
#include "tuner/rates.h"

namespace nictune::tuner {

CpuPressure AssessCpuPressure(const Observation& obs, const PolicyConfig& config,
                              std::string_view device) {
  CpuPressure p;
  const QueueObservation* busiest = nullptr;
  for (const QueueObservation& q : obs.queues) {
    if (!device.empty() && q.device != device) continue;
    p.time_squeeze_per_s = std::max(p.time_squeeze_per_s, PerSecond(q.time_squeeze, obs.window));
    // Among equal softirq shares (idle CPUs read 0), the queue with the most packets speaks.
    if (busiest == nullptr || q.cpu.softirq > busiest->cpu.softirq ||
        (q.cpu.softirq == busiest->cpu.softirq && q.rx_packets > busiest->rx_packets)) {
      busiest = &q;
    }
  }
  if (busiest != nullptr) {
    p.busiest = QueueTarget(*busiest);
    p.busiest_device = busiest->device;
    p.cpu = busiest->cpu;
    p.serving_cpus = busiest->serving_cpus;
    p.rx_packets = busiest->rx_packets;
    p.rx_rate_pps = PerSecond(busiest->rx_packets, obs.window);
  }
  // Less than this idle share means nothing is left over for user space to take.
  constexpr double kIdleSlack = 0.05;
  p.starving = busiest != nullptr && p.cpu.softirq >= config.softirq_cap &&
               p.cpu.user < config.user_fair_share && p.cpu.idle < kIdleSlack;
  p.room = p.cpu.softirq < config.softirq_cap;
  p.summary =
      absl::StrFormat("%s: softirq %.2f, user %.2f, idle %.2f, hardirq %.2f, time_squeeze %.2f/s",
                      p.busiest.empty() ? "no queue" : p.busiest, p.cpu.softirq, p.cpu.user,
                      p.cpu.idle, p.cpu.hardirq, p.time_squeeze_per_s);
  return p;
}

}  // namespace nictune::tuner
