// SPDX-License-Identifier: Apache-2.0
// Threaded NAPI (/sys/class/net/DEV/threaded) for a device whose softirq starves user space while
// other CPUs idle. A NAPI poll runs in softirq on the CPU that took its interrupt, so one busy
// queue can hold a CPU while others wait; in the device's kernel threads the scheduler moves the
// polls to an idle CPU and shares the serving CPU with user space (seed 000: the fair share for
// user space). Only ever switched on, and by hand only (tuner::ByHandOnly): docs/design.md "Knobs".
#pragma once

#include <string>
#include <vector>

#include "tuner/cpu_pressure.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// Whether threads would relieve the busiest queue's CPUs, and with how much idle elsewhere.
struct ThreadingRelief {
  bool relieves = false;
  // The host's idle CPUs outside the busiest queue's serving CPUs.
  double idle_elsewhere_cpus = 0;
};

ThreadingRelief AssessThreading(const Observation& obs, const CpuPressure& pressure,
                                const PolicyConfig& config);

// One recommendation per device whose `threaded` is known: 1 for the busiest queue's device when
// its softirq starves user space (CpuPressure::starving), it polls in softirq and the rest of the
// host idles at least threaded_min_idle_cpus; else keep, saying why.
std::vector<Recommendation> RecommendThreaded(const Observation& obs, const PolicyConfig& config);

}  // namespace nictune::tuner
