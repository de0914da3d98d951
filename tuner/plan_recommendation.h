// SPDX-License-Identifier: Apache-2.0
// What the policies that judge a queue by its interval plan (coalescing, deferral, the ring)
// share: a recommendation that keeps the current value until the policy decides, with the plan's
// inputs, and the confidence such a recommendation has.
#pragma once

#include <cstdint>
#include <string>

#include "tuner/confidence.h"
#include "tuner/interval_plan.h"
#include "tuner/knob.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

inline Recommendation PlanRecommendation(Knob knob, Scope scope, std::string target,
                                         int64_t current, const IntervalPlan& plan,
                                         const Confidence& confidence) {
  Recommendation r = Unchanged(knob, scope, std::move(target), current, confidence);
  r.inputs = plan.inputs;
  return r;
}

// The window's confidence for the queue, lowered where the plan's interrupt cost was assumed.
inline Confidence MeasuredPlanConfidence(const Observation& obs, const QueueObservation& queue,
                                         const IntervalPlan& plan, const PolicyConfig& config) {
  Confidence confidence = ConfidenceFrom(obs, queue.rx_packets, config);
  if (!plan.interrupt_cost_measured) {
    confidence = Discount(confidence, kAssumedInterruptCostConfidence,
                          "interrupt cost not measured, assumed");
  }
  return confidence;
}

// The same, lowered too where the worst socket's drain gap was not seen over the range that moves
// the plan.
inline Confidence PlanConfidence(const Observation& obs, const QueueObservation& queue,
                                 const IntervalPlan& plan, const PolicyConfig& config) {
  return WithDrainGapCoverage(MeasuredPlanConfidence(obs, queue, plan, config), plan);
}

}  // namespace nictune::tuner
