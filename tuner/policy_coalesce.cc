// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_coalesce.h"

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

Recommendation QueueRecommendation(Knob knob, const QueueObservation& queue, int64_t current,
                                   const IntervalPlan& plan, const Confidence& confidence) {
  return PlanRecommendation(knob, QueueScope(queue), QueueTarget(queue), current, plan, confidence);
}

uint64_t SocketDrops(const QueueObservation& queue) {
  uint64_t per_socket = 0;
  for (const SocketObservation& s : queue.sockets) {
    per_socket = s.drops > std::numeric_limits<uint64_t>::max() - per_socket
                     ? std::numeric_limits<uint64_t>::max()
                     : per_socket + s.drops;
  }
  return std::max(queue.drops.socket, per_socket);
}

// The frame cap's interrupt rate is told apart from rx-usecs' only above this ratio of it: a
// frame's rounding moves it by a percent or two.
constexpr double kFramesFireFirst = 1.05;

// A current interval above the drop-free one, while nothing drops, is predicted to eat into the
// margin, not to overflow: the gain of shortening it is the share of the margin it gives back,
// whole once the current value reaches the fill time. A rate estimate that moved by 0.01% put
// 2814 us above a limit of 2813.67 us on the emulated NIC, and a gain of 1 for that made the
// controller write 2813 and judge the write on CPU noise.
double MarginRestored(double current_s, double max_interval_s, double margin) {
  const double margin_span_s = margin < 1 ? max_interval_s * margin / (1 - margin) : 0;
  if (margin_span_s <= 0) return 1.0;
  return std::clamp((current_s - max_interval_s) / margin_span_s, 0.0, 1.0);
}

}  // namespace

std::vector<Recommendation> RecommendCoalesce(const Observation& obs, const QueueObservation& queue,
                                              const IntervalPlan& plan,
                                              const PolicyConfig& config) {
  std::vector<Recommendation> out;
  const CoalesceState& c = queue.coalesce;
  if (!c.rx_usecs_supported) return out;

  const Confidence measured = MeasuredPlanConfidence(obs, queue, plan, config);
  const Confidence confidence = WithDrainGapCoverage(measured, plan);
  const double interrupt_rate = PerSecond(queue.interrupts, obs.window);
  // The floor is one vector's; a whole-device observation of N rings counts N vectors.
  const double vector_rate = interrupt_rate / RxRings(queue);
  const double drop_rate = PerSecond(SocketDrops(queue), obs.window);
  const double ring_drop_rate = PerSecond(queue.drops.ring, obs.window);
  const double floor_rate =
      plan.max_interval_s > 0 ? 1 / plan.max_interval_s : std::numeric_limits<double>::infinity();

  bool adaptive_stays_on = false;
  if (c.adaptive_rx_supported) {
    Recommendation r =
        QueueRecommendation(Knob::kAdaptiveRx, queue, c.adaptive_rx ? 1 : 0, plan, confidence);
    r.inputs.push_back({"interrupt_rate", interrupt_rate, "1/s"});
    r.inputs.push_back({"socket_drops", drop_rate, "1/s"});
    r.inputs.push_back({"ring_drops", ring_drop_rate, "1/s"});
    const bool violates =
        plan.constrained && vector_rate < floor_rate && (drop_rate > 0 || ring_drop_rate > 0);
    const std::string rate_text =
        queue.rx_rings > 1 ? absl::StrFormat("interrupt rate %.0f/s per vector (%.0f/s over %u)",
                                             vector_rate, interrupt_rate, queue.rx_rings)
                           : absl::StrFormat("interrupt rate %.0f/s", interrupt_rate);
    if (c.adaptive_rx && !violates) {
      adaptive_stays_on = true;
      r.formula = absl::StrFormat(
          "adaptive-rx on: %s, floor 1 / drop-free interval = %.0f/s, socket drops %.2f/s, ring "
          "drops "
          "%.2f/s: it keeps the floor or nothing drops -> keep on",
          rate_text, floor_rate, drop_rate, ring_drop_rate);
      r.expected_effect = "no change";
    } else if (c.adaptive_rx) {
      r.recommended = 0;
      r.formula = absl::StrFormat(
          "adaptive-rx on: %s < floor 1 / drop-free interval = %.0f/s while sockets drop %.2f/s "
          "and the ring "
          "%.2f/s -> off, rx-usecs set from the fill math",
          rate_text, floor_rate, drop_rate, ring_drop_rate);
      r.expected_effect = "interrupt rate held at or above the floor; the drops should stop";
      r.expected_gain = plan.drop_free ? 1.0 : 0.5;
    } else {
      r.formula = "adaptive-rx off: the tuner sets rx-usecs from the fill math -> keep off";
      r.expected_effect = "no change";
    }
    out.push_back(std::move(r));
  }

  Recommendation usecs = QueueRecommendation(Knob::kRxUsecs, queue, c.rx_usecs, plan, confidence);
  usecs.step = plan.granularity_us;
  usecs.inputs.push_back({"interrupt_rate", interrupt_rate, "1/s"});
  usecs.inputs.push_back({"socket_drops", drop_rate, "1/s"});
  usecs.inputs.push_back({"ring_drops", ring_drop_rate, "1/s"});
  if (!plan.constrained) {
    usecs.formula = absl::StrFormat(
        "no socket with traffic and no ring limit seen -> keep rx-usecs %u", c.rx_usecs);
    usecs.expected_effect = "no change";
    usecs.confidence = Discount(usecs.confidence, 0.5, "nothing constrains the interval");
    out.push_back(std::move(usecs));
    return out;
  }
  if (adaptive_stays_on) {
    usecs.formula = absl::StrCat(plan.formula,
                                 "; adaptive-rx stays on and owns the interval -> "
                                 "keep rx-usecs ",
                                 c.rx_usecs);
    usecs.expected_effect = "no change";
    out.push_back(std::move(usecs));
    return out;
  }

  const double current_s = static_cast<double>(c.rx_usecs) * 1e-6;
  // Drops a stall explains are no gain to chase: the gain is then what it would be without them.
  // Counting them made the controller write, every window, a value a few us from the last (2892,
  // 2898, 2904 us on the emulated NIC), each "gain 1.00", and guard every one.
  const bool interval_dropped =
      (drop_rate > 0 || plan.ring_dropped_at_current) && !plan.drops_within_stalls;
  // A plan this close to an interval that holds is the rate's noise, not a gain.
  const double keep_within = config.keep_within_margin_share * config.margin;
  const bool keep_current = !interval_dropped && std::abs(static_cast<double>(plan.interval_us) -
                                                          static_cast<double>(c.rx_usecs)) <=
                                                     keep_within * static_cast<double>(c.rx_usecs);
  if (keep_current) {
    usecs.formula = absl::StrCat(
        plan.formula,
        absl::StrFormat(" -> rx-usecs %d, within %.1f%% (%.2f of the margin) of the current %d us, "
                        "which drops nothing beyond what stalls explain -> keep rx-usecs %d",
                        plan.interval_us, keep_within * 100, config.keep_within_margin_share,
                        c.rx_usecs, c.rx_usecs));
    usecs.expected_effect = "no change";
  } else {
    usecs.recommended = plan.interval_us;
    usecs.formula = absl::StrCat(
        plan.formula, absl::StrFormat(" -> rx-usecs %d (granularity %d us, max %d us)",
                                      plan.interval_us, plan.granularity_us, plan.cap_us));
    if (interval_dropped && plan.drop_free) {
      usecs.expected_gain = 1.0;
    } else if (current_s > plan.max_interval_s && plan.drop_free) {
      usecs.expected_gain = MarginRestored(current_s, plan.max_interval_s, config.margin);
    } else if (interrupt_rate > 0) {
      usecs.expected_gain =
          std::clamp((interrupt_rate - plan.predicted_interrupt_rate) / interrupt_rate, 0.0, 1.0);
    }
    // What the change is for, where it is drops: the table shows the effect, not the formula.
    const std::string now_dropping =
        drop_rate + ring_drop_rate > 0
            ? absl::StrFormat(" (now %.0f drops/s)", drop_rate + ring_drop_rate)
            : std::string();
    usecs.expected_effect = absl::StrFormat(
        "about %.0f interrupts/s (now %.0f/s); %s", plan.predicted_interrupt_rate, interrupt_rate,
        plan.drop_free ? absl::StrCat("no socket or ring overflow predicted", now_dropping)
        : plan.unresolved.empty() ? absl::StrCat("overflow still predicted at this interval",
                                                 now_dropping, ": the receive buffer must grow")
                                  : plan.unresolved);
  }
  usecs.unresolved = plan.unresolved;
  if (usecs.recommended < c.rx_usecs)
    usecs.confidence = TowardLongerGaps(measured, confidence, "shorten");
  const double usecs_gain = usecs.expected_gain;
  out.push_back(std::move(usecs));

  if (c.rx_frames_supported) {
    Recommendation frames =
        QueueRecommendation(Knob::kRxFrames, queue, c.rx_frames, plan, confidence);
    const double rate = std::max(plan.rx_rate_pps, plan.worst_inputs.rate_pps);
    int64_t cap = TunerRange(Knob::kRxFrames).max;
    if (c.rx_frames_max > 0) cap = std::min<int64_t>(cap, c.rx_frames_max);
    if (c.rx_ring_size > 0) {
      cap = std::min(cap, static_cast<int64_t>((1 - config.margin) * c.rx_ring_size));
    }
    // More frames than the worst socket can take between two drains would overflow it before
    // the frame count fires: a frame limit is only a guard if it fires first.
    if (plan.worst_usable_packets >= 1) {
      cap = std::min(cap, static_cast<int64_t>(std::floor(plan.worst_usable_packets)));
    }
    cap = std::max<int64_t>(cap, 1);
    const double wanted = std::ceil(rate * static_cast<double>(plan.interval_us) * 1e-6);
    frames.recommended = std::clamp(
        static_cast<int64_t>(std::min(wanted, static_cast<double>(cap))), int64_t{1}, cap);
    frames.formula = absl::StrFormat(
        "rx-frames = ceil(%.0f pps * %d us) = %.0f, within [1, %d] -> %d: a burst interrupts "
        "before it can overflow, a steady flow at rx-usecs",
        rate, plan.interval_us, wanted, cap, frames.recommended);
    frames.expected_effect = "interrupts at rx-usecs for a steady flow, earlier for a burst";
    const double frame_rate = rate / static_cast<double>(frames.recommended);
    // The cap fires well before rx-usecs (not by a frame's rounding): a steady flow interrupts
    // every `recommended` frames, and rx-usecs' own interrupt rate is not the one to expect.
    if (wanted > static_cast<double>(frames.recommended) &&
        frame_rate > kFramesFireFirst * plan.predicted_interrupt_rate) {
      frames.expected_effect = absl::StrFormat(
          "a steady flow interrupts every %d frames, about %.0f/s, before rx-usecs (%.0f/s): the "
          "frame cap (the socket's buffer between drains, the ring, the driver's maximum) fires "
          "first",
          frames.recommended, frame_rate, plan.predicted_interrupt_rate);
      out.back().expected_effect =
          absl::StrCat(out.back().expected_effect,
                       absl::StrFormat("; rx-frames %d fires first: about %.0f interrupts/s",
                                       frames.recommended, frame_rate));
    }
    frames.expected_gain = usecs_gain;
    if (c.rx_frames == 0 || frames.recommended < c.rx_frames) {
      frames.confidence = TowardLongerGaps(measured, confidence, "shorten");
    }
    out.push_back(std::move(frames));
  }
  return out;
}

}  // namespace nictune::tuner
