// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_ring.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/limits.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

double Us(double seconds) { return seconds * 1e6; }

// The descriptors that hold an interval of the ring's peak rate until the poll takes them, an
// interrupt's cost later, within the margin: the ring limit solved for the ring.
double DescriptorsFor(const IntervalPlan& plan, int64_t interval_us, double margin) {
  return plan.ring_peak_rate_pps *
         (static_cast<double>(interval_us) * 1e-6 + plan.interrupt_cost_s) / (1 - margin);
}

// The interval `descriptors` hold at the ring's peak rate: the ring limit.
double IntervalHeldUs(const IntervalPlan& plan, int64_t descriptors, double margin) {
  if (plan.ring_peak_rate_pps <= 0) return std::numeric_limits<double>::infinity();
  return Us((1 - margin) * static_cast<double>(descriptors) / plan.ring_peak_rate_pps -
            plan.interrupt_cost_s);
}

Recommendation Kept(Recommendation r, std::string formula) {
  r.formula = std::move(formula);
  r.expected_effect = "no change";
  return r;
}

}  // namespace

std::vector<Recommendation> RecommendRing(const Observation& obs, const QueueObservation& queue,
                                          const IntervalPlan& plan, const PolicyConfig& config) {
  const CoalesceState& c = queue.coalesce;
  if (c.rx_ring_size == 0) return {};
  Recommendation r;
  r.knob = Knob::kRxRing;
  r.knob_name = std::string(KnobName(Knob::kRxRing));
  r.scope = Scope::kDevice;  // ethtool -G sets every ring of the device
  r.target = queue.device;
  r.current = c.rx_ring_size;
  r.recommended = r.current;
  r.inputs = plan.inputs;
  r.confidence = ConfidenceFrom(obs, queue.rx_packets, config);
  if (!plan.interrupt_cost_measured) {
    r.confidence = Discount(r.confidence, kAssumedInterruptCostConfidence,
                            "interrupt cost not measured, assumed");
  }
  r.confidence = WithDrainGapCoverage(r.confidence, plan);
  if (!std::isfinite(plan.ring_limit_s)) {
    return {Kept(r, absl::StrFormat("no traffic on the ring -> keep rx ring %u", c.rx_ring_size))};
  }

  // The interval the queue's sockets allow, as if the ring never filled.
  QueueObservation unringed = queue;
  unringed.coalesce.rx_ring_size = 0;
  const absl::StatusOr<IntervalPlan> free = PlanQueueInterval(unringed, obs.window, config);
  if (!free.ok()) {
    return {Kept(r, absl::StrCat("no plan without the ring: ", free.status().message(),
                                 " -> keep rx ring ", c.rx_ring_size))};
  }
  const double limit_us = Us(plan.ring_limit_s);
  const bool overflows = limit_us < static_cast<double>(plan.interval_us);
  const bool shortens = free->interval_us > plan.interval_us;
  const int64_t target_us = std::max(free->interval_us, plan.interval_us);
  const double needed = std::ceil(DescriptorsFor(plan, target_us, config.margin));
  const std::string limit_text = absl::StrFormat(
      "ring limit = (1 - %.2f) * %u / %.0f pps - %.2f us = %.2f us; the sockets allow %d us "
      "(the ring not counted)",
      config.margin, c.rx_ring_size, plan.ring_peak_rate_pps, Us(plan.interrupt_cost_s), limit_us,
      free->interval_us);
  if (!overflows && !shortens && !plan.ring_dropped_at_current) {
    return {Kept(r, absl::StrCat(limit_text,
                                 ": the ring does not hold the interval short -> keep "
                                 "rx ring ",
                                 c.rx_ring_size))};
  }
  const KnobRange range = TunerRange(Knob::kRxRing);
  int64_t cap = range.max;
  if (c.rx_ring_max > 0) cap = std::min<int64_t>(cap, c.rx_ring_max);
  // Never shrunk, and never grown to less than the tuner's smallest ring.
  const int64_t wanted =
      std::clamp(static_cast<int64_t>(std::min(needed, static_cast<double>(cap))),
                 std::min(range.min, cap), cap);
  r.recommended = std::max<int64_t>(r.current, wanted);
  r.formula = absl::StrFormat(
      "%s; ring = ceil(%.0f pps * (%d us + %.2f us) / (1 - %.2f)) = %.0f descriptors, at most "
      "%d%s -> rx ring %d",
      limit_text, plan.ring_peak_rate_pps, target_us, Us(plan.interrupt_cost_s), config.margin,
      needed, cap, c.rx_ring_max > 0 ? " (the driver's maximum or the tuner's)" : " (the tuner's)",
      r.recommended);
  const double held_us = IntervalHeldUs(plan, r.recommended, config.margin);
  if (needed > static_cast<double>(cap)) {
    r.unresolved = absl::StrFormat(
        "the largest ring, %d descriptors, holds %.2f us at %.0f pps, below the %d us the sockets "
        "allow: spread the traffic over more rings (RSS) or accept more interrupts",
        cap, held_us, plan.ring_peak_rate_pps, target_us);
  }
  if (r.recommended == r.current) {
    r.expected_effect = "no change";
    return {r};
  }
  const double reachable_us = std::min(static_cast<double>(target_us), held_us);
  if (overflows || plan.ring_dropped_at_current) {
    r.expected_gain = 1.0;
    r.expected_effect = absl::StrFormat(
        "the ring holds %.0f us at the peak rate (now %.0f us): it stops overflowing, and rx-usecs "
        "can reach %.0f us",
        held_us, limit_us, reachable_us);
  } else {
    r.expected_gain =
        std::clamp(1 - static_cast<double>(plan.interval_us) / reachable_us, 0.0, 1.0);
    r.expected_effect = absl::StrFormat(
        "the ring holds %.0f us at the peak rate (now %.0f us): rx-usecs can reach %.0f us, "
        "%.0f%% fewer interrupts than at %d us",
        held_us, limit_us, reachable_us, r.expected_gain * 100, plan.interval_us);
  }
  return {r};
}

}  // namespace nictune::tuner
