// SPDX-License-Identifier: Apache-2.0
// Software interrupt mitigation (napi_defer_hard_irqs, gro_flush_timeout) for devices whose NIC
// has no usable hardware moderation (veth, some virtio, no rx-usecs).
#pragma once

#include <vector>

#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// Without hardware moderation: gro_flush_timeout = the plan's interval (in ns; plan made with 1 us
// granularity and the timeout's cap), and napi_defer_hard_irqs = the number of empty timer polls
// after which the flow is taken as gone: with Poisson arrivals an interval u is empty with
// probability exp(-rate * u), so n = ceil(-ln(p) / (rate * u)) keeps a false re-arm below p.
// Deferral is switched off (0, 0) when a flow brings too few packets per interval for n <= cap.
// With hardware moderation, or when the device has no deferral knobs, the current values are kept.
std::vector<Recommendation> RecommendDefer(const Observation& obs, const QueueObservation& queue,
                                           const IntervalPlan& plan, const PolicyConfig& config);

}  // namespace nictune::tuner
