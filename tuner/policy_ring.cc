// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_ring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/limits.h"
#include "tuner/plan_recommendation.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

// What the ring must take: its peak rate, or more where it overflowed at the current interval:
// `ring` descriptors filled within one cycle of it, whatever the model's peak saw.
struct RingRate {
  double pps = 0;
  std::string why;  // "" for the plan's peak
};

RingRate RateToHold(const QueueObservation& queue, const IntervalPlan& plan) {
  RingRate rate{.pps = plan.ring_peak_rate_pps, .why = ""};
  const CoalesceState& c = queue.coalesce;
  const double cycle_s = static_cast<double>(c.rx_usecs) * 1e-6 + plan.interrupt_cost_s;
  if (plan.ring_dropped_at_current && cycle_s > 0) {
    const double proven = static_cast<double>(c.rx_ring_size) / cycle_s;
    if (proven > rate.pps) {
      rate = {.pps = proven,
              .why = absl::StrFormat(" (%u descriptors overflowed within the current %u us + "
                                     "%.2f us)",
                                     c.rx_ring_size, c.rx_usecs, Us(plan.interrupt_cost_s))};
    }
  }
  return rate;
}

// The interval `descriptors` hold at `pps`, an interrupt's cost later: the ring limit.
double IntervalHeldUs(double pps, const IntervalPlan& plan, int64_t descriptors, double margin) {
  if (pps <= 0) return std::numeric_limits<double>::infinity();
  return Us((1 - margin) * static_cast<double>(descriptors) / pps - plan.interrupt_cost_s);
}

Recommendation Kept(Recommendation r, std::string formula) {
  r.formula = std::move(formula);
  r.expected_effect = "no change";
  return r;
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> IntervalWithoutTheRing(const QueueObservation& queue,
                                                              absl::Duration window,
                                                              const PolicyConfig& config) {
  QueueObservation unringed = queue;
  unringed.coalesce.rx_ring_size = 0;
  unringed.drops.ring = 0;
  absl::StatusOr<IntervalPlan> free = PlanQueueInterval(unringed, window, config);
  if (!free.ok()) return free.status();
  if (!free->constrained) return std::nullopt;
  return free->interval_us;
}

std::vector<Recommendation> RecommendRing(const Observation& obs, const QueueObservation& queue,
                                          const IntervalPlan& plan,
                                          std::optional<int64_t> device_interval_us,
                                          const PolicyConfig& config) {
  const CoalesceState& c = queue.coalesce;
  if (c.rx_ring_size == 0) return {};
  // ethtool -G sets every ring of the device.
  Recommendation r = PlanRecommendation(Knob::kRxRing, Scope::kDevice, queue.device, c.rx_ring_size,
                                        plan, PlanConfidence(obs, queue, plan, config));
  if (!std::isfinite(plan.ring_limit_s)) {
    return {Kept(r, absl::StrFormat("no traffic on the ring -> keep rx ring %u", c.rx_ring_size))};
  }
  const double limit_us = Us(plan.ring_limit_s);
  const bool overflows = limit_us < static_cast<double>(plan.interval_us);
  const bool dropped = plan.ring_dropped_at_current;
  // The device runs at its strictest queue's interval: the ring holds that one.
  const int64_t target_us = std::max(device_interval_us.value_or(plan.interval_us),
                                     overflows ? plan.interval_us : int64_t{0});
  const RingRate rate = RateToHold(queue, plan);
  const double needed =
      std::ceil(rate.pps * (static_cast<double>(target_us) * 1e-6 + plan.interrupt_cost_s) /
                (1 - config.margin));
  std::string formula = absl::StrFormat(
      "ring limit = (1 - %.2f) * %u / %.0f pps - %.2f us = %.2f us; %s", config.margin,
      c.rx_ring_size, plan.ring_peak_rate_pps, Us(plan.interrupt_cost_s), limit_us,
      device_interval_us
          ? absl::StrFormat("the device's sockets allow %d us (the ring not counted)", target_us)
          : absl::StrFormat("no socket limits the device's interval: the ring holds the chosen "
                            "%d us",
                            target_us));
  if (!overflows && !dropped && limit_us >= static_cast<double>(target_us)) {
    return {Kept(r, absl::StrCat(formula, ": the ring holds it -> keep rx ring ", c.rx_ring_size))};
  }
  // A longer interval saves cost * (1 / u - 1 / target) of a CPU on each ring's vector.
  const double saving = plan.interrupt_cost_s * RxRings(queue) * 1e6 *
                        (1 / static_cast<double>(std::max<int64_t>(plan.interval_us, 1)) -
                         1 / static_cast<double>(std::max<int64_t>(target_us, 1)));
  if (!overflows && !dropped && saving < config.ring_min_cpu_saving) {
    return {Kept(r, absl::StrCat(formula, absl::StrFormat(
                                              ": the longer interval would save %.2f%% of a CPU "
                                              "in interrupts, below %.0f%%, which is not worth "
                                              "restarting the device's queues -> keep rx ring %u",
                                              saving * 100, config.ring_min_cpu_saving * 100,
                                              c.rx_ring_size)))};
  }
  const KnobRange range = TunerRange(Knob::kRxRing);
  const int64_t cap = c.rx_ring_max > 0 ? std::min<int64_t>(range.max, c.rx_ring_max) : range.max;
  absl::StrAppend(
      &formula,
      absl::StrFormat(
          "; ring = ceil(%.0f pps%s * (%d us + %.2f us) / (1 - %.2f)) = "
          "%.0f descriptors, at most %d%s",
          rate.pps, rate.why, target_us, Us(plan.interrupt_cost_s), config.margin, needed, cap,
          c.rx_ring_max > 0 ? " (the driver's maximum or the tuner's)" : " (the tuner's)"));
  if (cap < range.min) {
    r.unresolved = absl::StrFormat(
        "the driver's largest ring, %d descriptors, is below the tuner's smallest, %d", cap,
        range.min);
    return {Kept(r, absl::StrCat(formula, " -> keep rx ring ", c.rx_ring_size))};
  }
  const int64_t wanted = std::clamp<int64_t>(
      static_cast<int64_t>(std::min(needed, static_cast<double>(cap))), range.min, cap);
  r.recommended = std::max<int64_t>(r.current, wanted);
  absl::StrAppend(&formula, " -> rx ring ", r.recommended);
  r.formula = std::move(formula);
  const double held_us = IntervalHeldUs(rate.pps, plan, r.recommended, config.margin);
  const bool short_of_need = needed > static_cast<double>(r.recommended);
  if (short_of_need) {
    r.unresolved = absl::StrFormat(
        "the largest ring, %d descriptors, holds %.2f us at %.0f pps, below the %d us the "
        "device's sockets allow: spread the traffic over more rings (RSS) or accept more "
        "interrupts",
        r.recommended, held_us, rate.pps, target_us);
  }
  if (r.recommended == r.current) {
    r.expected_effect = "no change";
    return {r};
  }
  if (overflows || dropped) {
    r.expected_gain = 1.0;
    r.expected_effect =
        absl::StrFormat("the ring holds %.0f us at %.0f pps (now %.0f us): %s", held_us, rate.pps,
                        limit_us, short_of_need ? "it overflows less" : "it stops overflowing");
  } else {
    const double reachable_us = std::min(static_cast<double>(target_us), held_us);
    r.expected_gain =
        std::clamp(1 - static_cast<double>(plan.interval_us) / reachable_us, 0.0, 1.0);
    r.expected_effect = absl::StrFormat(
        "the ring holds %.0f us at the peak rate (now %.0f us): the interval can reach %.0f us, "
        "%.0f%% fewer interrupts than at %d us (%.1f%% of a CPU)",
        held_us, limit_us, reachable_us, r.expected_gain * 100, plan.interval_us, saving * 100);
  }
  return {r};
}

std::vector<Recommendation> LargestRingPerDevice(std::vector<Recommendation> rings) {
  std::vector<Recommendation> out;
  std::map<std::string, size_t> at;  // device -> index in out
  for (Recommendation& r : rings) {
    const auto [it, first] = at.try_emplace(r.target, out.size());
    if (first) {
      out.push_back(std::move(r));
    } else if (r.recommended - r.current > out[it->second].recommended - out[it->second].current) {
      out[it->second] = std::move(r);
    }
  }
  return out;
}

}  // namespace nictune::tuner
