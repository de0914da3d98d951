// SPDX-License-Identifier: Apache-2.0
// The rx ring (ethtool -G rx) a queue's interval needs. The ring holds what arrives in an
// interval until the poll takes it: where the ring, not a socket, holds the interval short, or
// overflows at the cost floor, or overflowed at the current interval, it must grow to
// peak rate * (u + interrupt cost) / (1 - margin) descriptors for the interval the sockets allow.
// Only ever grown, and by hand only (tuner::ByHandOnly): docs/design.md "The math".
#pragma once

#include <vector>

#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// One recommendation for the queue's device when its ring size is known (else none): grow it, or
// keep it with the reason.
std::vector<Recommendation> RecommendRing(const Observation& obs, const QueueObservation& queue,
                                          const IntervalPlan& plan, const PolicyConfig& config);

}  // namespace nictune::tuner
