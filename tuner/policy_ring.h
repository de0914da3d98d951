// SPDX-License-Identifier: Apache-2.0
// The rx ring (ethtool -G rx) a device's interval needs. A ring holds what arrives in an interval
// until the poll takes it: where the ring, not a socket, holds the interval short, or overflows at
// the cost floor, or overflowed at the current interval, it must grow to
// peak rate * (u + interrupt cost) / (1 - margin) descriptors, u being the interval the device's
// sockets allow. Only ever grown, and by hand only (tuner::ByHandOnly): docs/design.md "Knobs".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// The interval a queue's sockets allow with its ring not counted, nor the ring's drops; nullopt
// when nothing but the ring constrains it.
absl::StatusOr<std::optional<int64_t>> IntervalWithoutTheRing(const QueueObservation& queue,
                                                              absl::Duration window,
                                                              const PolicyConfig& config);

// One recommendation for the queue's device when its ring size is known (else none): grow it to
// hold `device_interval_us` (the shortest IntervalWithoutTheRing of the device's queues; nullopt:
// the queue's own plan), or keep it with the reason.
std::vector<Recommendation> RecommendRing(const Observation& obs, const QueueObservation& queue,
                                          const IntervalPlan& plan,
                                          std::optional<int64_t> device_interval_us,
                                          const PolicyConfig& config);

// Of one device's ring recommendations, one per queue, the one that grows the ring most (the
// first when none does): every ring of the device gets the size.
std::vector<Recommendation> LargestRingPerDevice(std::vector<Recommendation> rings);

}  // namespace nictune::tuner
