// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_defer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/limits.h"
#include "tuner/plan_recommendation.h"
#include "tuner/queue_target.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

// The sysfs knobs are per device even when the observation is per queue.
Recommendation DeviceRecommendation(Knob knob, const QueueObservation& queue, int64_t current,
                                    const IntervalPlan& plan, const Confidence& confidence) {
  return PlanRecommendation(knob, Scope::kDevice, queue.device, current, plan, confidence);
}

}  // namespace

std::vector<Recommendation> RecommendDefer(const Observation& obs, const QueueObservation& queue,
                                           const IntervalPlan& plan, const PolicyConfig& config) {
  std::vector<Recommendation> out;
  const DeferState& d = queue.defer;
  if (!d.supported) return out;

  const Confidence measured = ConfidenceFrom(obs, queue.rx_packets, config);
  const Confidence confidence = WithDrainGapCoverage(measured, plan);
  const int64_t current_timeout = static_cast<int64_t>(std::min<uint64_t>(
      d.gro_flush_timeout_ns, static_cast<uint64_t>(KernelRange(Knob::kGroFlushTimeout).max)));
  Recommendation defer = DeviceRecommendation(Knob::kNapiDeferHardIrqs, queue,
                                              d.napi_defer_hard_irqs, plan, confidence);
  Recommendation timeout =
      DeviceRecommendation(Knob::kGroFlushTimeout, queue, current_timeout, plan, confidence);

  if (queue.coalesce.rx_usecs_supported) {
    const std::string why =
        "the NIC has rx-usecs: hardware moderation is used, deferral is kept "
        "as set";
    defer.formula = timeout.formula = why;
    defer.expected_effect = timeout.expected_effect = "no change";
  } else if (!plan.constrained) {
    defer.formula = timeout.formula =
        "no socket with traffic and no ring limit seen -> keep deferral as set";
    defer.expected_effect = timeout.expected_effect = "no change";
  } else {
    const double packets_per_interval =
        plan.rx_rate_pps * static_cast<double>(plan.interval_us) * 1e-6;
    const double log_p = -std::log(std::clamp(config.defer_false_rearm_probability, 1e-9, 0.5));
    const double wanted = packets_per_interval > 0 ? std::ceil(log_p / packets_per_interval)
                                                   : std::numeric_limits<double>::infinity();
    const KnobRange range = TunerRange(Knob::kNapiDeferHardIrqs);
    const std::string arithmetic = absl::StrFormat(
        "%s; packets per interval = %.0f pps * %d us = %.3f; n = ceil(-ln(%.3f) / %.3f) = %.0f",
        plan.formula, plan.rx_rate_pps, plan.interval_us, packets_per_interval,
        config.defer_false_rearm_probability, packets_per_interval, wanted);
    if (plan.interval_us == 0 || wanted > static_cast<double>(range.max)) {
      defer.recommended = 0;
      timeout.recommended = 0;
      defer.formula = timeout.formula = absl::StrCat(
          arithmetic, absl::StrFormat(" > %d (or no interval): too few packets per interval, "
                                      "deferral only adds timer wake-ups -> off (0, 0)",
                                      range.max));
      defer.expected_effect = timeout.expected_effect =
          "one interrupt per packet burst, no timer polls";
    } else {
      defer.recommended = std::clamp(static_cast<int64_t>(wanted), int64_t{1}, range.max);
      timeout.recommended =
          std::min(plan.interval_us * 1000, TunerRange(Knob::kGroFlushTimeout).max);
      defer.formula = timeout.formula = absl::StrCat(
          arithmetic, absl::StrFormat(" -> napi_defer_hard_irqs %d, gro_flush_timeout %d ns",
                                      defer.recommended, timeout.recommended));
      defer.expected_effect = timeout.expected_effect = absl::StrFormat(
          "hard interrupts replaced by timer polls every %d us (about %.0f/s)%s", plan.interval_us,
          plan.predicted_interrupt_rate,
          plan.drop_free ? "" : "; overflow still predicted: the receive buffer must grow");
    }
    const double interrupt_rate = PerSecond(queue.interrupts, obs.window);
    const double gain =
        interrupt_rate > 0
            ? std::clamp((interrupt_rate - plan.predicted_interrupt_rate) / interrupt_rate, 0.0,
                         1.0)
            : 0.0;
    defer.expected_gain = timeout.expected_gain = gain;
    // Deferring already, the timeout is the interval; without, a timeout only starts to defer.
    if (d.napi_defer_hard_irqs > 0 && timeout.recommended < timeout.current) {
      timeout.confidence = TowardLongerGaps(measured, confidence, "shorten");
    }
  }
  out.push_back(std::move(defer));
  out.push_back(std::move(timeout));
  return out;
}

}  // namespace nictune::tuner
