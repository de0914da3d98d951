// SPDX-License-Identifier: Apache-2.0
// Where the softirq stands against user space on the busiest CPUs serving the queues (seed 000:
// livelock and the fair share for user space). Budget and weight policies both read it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tuner/observation.h"
#include "tuner/policy_config.h"

namespace nictune::tuner {

struct CpuPressure {
  std::string busiest;         // queue whose CPUs spend the most in softirq
  std::string busiest_device;  // its device
  CpuSplit cpu;                // that queue's CPU split, the mean of its serving CPUs'
  uint32_t serving_cpus = 0;   // how many CPUs that mean is of
  uint64_t rx_packets = 0;  // that queue's, in the window
  double rx_rate_pps = 0;
  double time_squeeze_per_s = 0;  // worst queue
  // softirq >= softirq_cap, user < user_fair_share and less than 5% idle: user space is starved.
  bool starving = false;
  // softirq < softirq_cap: the softirq may take more.
  bool room = false;
  std::string summary;  // "eth0 rx 0: softirq 0.62, user 0.10, idle 0.01, time_squeeze 40/s"
};

// Over every queue of the observation, or over those of `device` alone when it is not empty.
CpuPressure AssessCpuPressure(const Observation& obs, const PolicyConfig& config,
                              std::string_view device = "");

}  // namespace nictune::tuner
