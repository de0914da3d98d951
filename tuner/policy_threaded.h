// SPDX-License-Identifier: Apache-2.0
// Threaded NAPI (/sys/class/net/DEV/threaded) for a device whose softirq starves user space while
// other CPUs idle. A NAPI poll runs in softirq on the CPU that took its interrupt, so one busy
// queue can hold a CPU while others wait; in the device's kernel threads the scheduler moves the
// polls to an idle CPU and shares the serving CPU with user space (seed 000: the fair share for
// user space). Only ever switched on, and by hand only (tuner::ByHandOnly): docs/design.md "Knobs".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/cpu_pressure.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// One recommendation per device whose `threaded` is known, each judged on its own busiest queue:
// 1 when that queue's softirq starves user space (CpuPressure::starving), the device polls in
// softirq and the rest of the host idles at least threaded_min_idle_cpus; else keep, saying why.
std::vector<Recommendation> RecommendThreaded(const Observation& obs, const PolicyConfig& config);

// The device of the host's busiest queue when threads are recommended for it: the budget and
// weight policies then leave the host's quotas alone, since the threads relieve the starved CPU
// by moving its polls elsewhere and a shorter quota only shares that one CPU.
std::optional<std::string> DeviceToThread(const Observation& obs, const CpuPressure& host,
                                          const PolicyConfig& config);

// The formula of a quota kept because threads come first for `device`.
std::string ThreadsFirstFormula(const CpuPressure& host, const std::string& device);

}  // namespace nictune::tuner
