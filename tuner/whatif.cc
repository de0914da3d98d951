// SPDX-License-Identifier: Apache-2.0
#include "tuner/whatif.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/burst_model.h"
#include "tuner/count_text.h"
#include "tuner/range_check.h"
#include "tuner/recommend.h"
#include "tuner/saturating_cast.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kWhatIfWindowSeconds = 10;

const Recommendation* FindKnob(const std::vector<Recommendation>& recs, Knob knob) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return &r;
  }
  return nullptr;
}

// Why the interval is not longer: the tuner's cap, the ring or the socket.
std::string WhatLimitsTheInterval(const WhatIfAdvice& a) {
  const IntervalPlan& plan = a.plan;
  if (a.rx_usecs >= plan.cap_us) {
    return absl::StrFormat("the tuner sets no interval above %d us", plan.cap_us);
  }
  if (plan.ring_limit_s * 1e6 < static_cast<double>(a.rx_usecs + plan.granularity_us)) {
    return absl::StrFormat("a longer one overruns the ring (its limit is %.2f us)",
                           plan.ring_limit_s * 1e6);
  }
  return "a longer one overflows the socket";
}

// Why the buffer must grow: the drain gap, the interrupt-rate ceiling, or a buffer under a packet.
std::string WhyTheBufferMustGrow(const WhatIfQuestion& q, const WhatIfAdvice& a) {
  const IntervalPlan& plan = a.plan;
  if (plan.worst_usable_packets < 1) {
    return absl::StrFormat(
        "the socket's %d bytes hold less than one packet of %d bytes at margin %g", q.rcvbuf_bytes,
        q.truesize_bytes, q.margin);
  }
  if (q.drain_gap_us > 0 && !plan.some_interval_fits) {
    return absl::StrFormat(
        "the reader's %d us drain gap: the deliveries that complete while it is away pile up "
        "more than the %.2f packets the socket can use, at any interval",
        q.drain_gap_us, plan.worst_usable_packets);
  }
  return absl::StrFormat(
      "every interval that fits the socket (up to %.2f us) interrupts more often than the "
      "ceiling of %.0f interrupts/s (%.2f us per interrupt, assumed; %g of a CPU)",
      plan.max_interval_s * 1e6, plan.ceiling.max_rate, plan.interrupt_cost_s * 1e6,
      plan.ceiling.max_rate * plan.interrupt_cost_s);
}

std::string Rationale(const WhatIfQuestion& q, const WhatIfAdvice& a) {
  const IntervalPlan& plan = a.plan;
  const std::string every = absl::StrFormat("every %d us (about %.0f interrupts/s)", a.rx_usecs,
                                            plan.predicted_interrupt_rate);
  const std::string held = PacketsText(plan.worst_burst.packets_held, 0);
  if (!a.unresolved.empty()) {
    return absl::StrCat(a.unresolved, a.so_rcvbuf_bytes
                                          ? absl::StrFormat("; SO_RCVBUF %d is the most the tuner "
                                                            "advises",
                                                            *a.so_rcvbuf_bytes)
                                          : std::string());
  }
  if (plan.drop_free) {
    return absl::StrFormat("interrupting %s keeps the socket from overflowing: a delivery there "
                           "holds %s of the %.2f it can use; %s",
                           every, held, plan.worst_usable_packets, WhatLimitsTheInterval(a));
  }
  if (!a.so_rcvbuf_bytes) return absl::StrCat("interrupting ", every, ": ", plan.formula);
  return absl::StrFormat(
      "no interval keeps this buffer from overflowing: %s. Raise SO_RCVBUF to %d bytes (the "
      "kernel doubles it: sk_rcvbuf %d; rmem_max must be at least %d) and interrupt %s, %s: the "
      "socket then holds the %s that pile up there",
      WhyTheBufferMustGrow(q, a), *a.so_rcvbuf_bytes, a.rcvbuf_bytes, *a.so_rcvbuf_bytes, every,
      plan.near_floor_buffer_interval_us > 0 ? "the longest interval needing about the cost "
                                               "floor's buffer"
                                             : "the cost floor",
      held);
}

}  // namespace

Observation WhatIfObservation(const WhatIfQuestion& question) {
  Observation obs;
  obs.window = absl::Seconds(kWhatIfWindowSeconds);
  obs.samples = static_cast<uint32_t>(kWhatIfWindowSeconds);
  const uint64_t packets = SaturatingUint64(question.rate_pps * kWhatIfWindowSeconds);
  QueueObservation q;
  q.device = "whatif";
  q.queue = 0;
  q.rx_packets = packets;
  q.rx_work = packets;
  q.rx_peak_rate_pps = question.rate_pps;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.rx_usecs_granularity = 1;
  q.coalesce.rx_ring_size =
      question.ring_size ? static_cast<uint32_t>(std::clamp<int64_t>(*question.ring_size, 0,
                                                                     kMaxWhatIfRingSize))
                         : 0;
  SocketObservation socket;
  socket.name = "whatif socket";
  socket.packets = packets;
  socket.truesize_mean_bytes = static_cast<double>(question.truesize_bytes);
  socket.truesize_p99_bytes = socket.truesize_mean_bytes;
  socket.rcvbuf_bytes = static_cast<uint64_t>(std::max<int64_t>(0, question.rcvbuf_bytes));
  socket.drain_gap_s = static_cast<double>(question.drain_gap_us) * 1e-6;
  socket.rcvbuf_locked = true;
  socket.peak_rate_pps = question.rate_pps;
  q.sockets.push_back(socket);
  obs.queues.push_back(q);
  return obs;
}

absl::Status CheckWhatIfQuestion(const WhatIfQuestion& q) {
  const auto d = [](int64_t value) { return static_cast<double>(value); };
  return CheckRanges(
      "what-if",
      {
          {"rate_pps", q.rate_pps, kMinWhatIfRatePps, kMaxWhatIfRatePps},
          {"truesize_bytes", d(q.truesize_bytes), 1, d(kMaxWhatIfTruesizeBytes)},
          {"rcvbuf_bytes", d(q.rcvbuf_bytes), 1, d(kMaxWhatIfRcvbufBytes)},
          {"drain_gap_us", d(q.drain_gap_us), 0, d(kMaxWhatIfDrainGapUs)},
          {"margin", q.margin, 0, kMaxWhatIfMargin},
          {"rx_usecs", d(q.rx_usecs.value_or(0)), 0, d(kMaxWhatIfRxUsecs)},
          {"ring_size", d(q.ring_size.value_or(1)), 1, d(kMaxWhatIfRingSize)},
      });
}

absl::StatusOr<WhatIfAdvice> AdviseWhatIf(const WhatIfQuestion& question) {
  if (absl::Status s = CheckWhatIfQuestion(question); !s.ok()) return s;
  const Observation obs = WhatIfObservation(question);
  PolicyConfig config;
  config.margin = question.margin;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, config);
  if (!recs.ok()) return recs.status();
  absl::StatusOr<IntervalPlan> plan = PlanQueueInterval(obs.queues.front(), obs.window, config);
  if (!plan.ok()) return plan.status();
  const Recommendation* usecs = FindKnob(*recs, Knob::kRxUsecs);
  if (usecs == nullptr) return absl::InternalError("what-if: the tuner recommended no rx-usecs");
  WhatIfAdvice a;
  a.plan = *std::move(plan);
  a.rx_usecs = usecs->recommended;
  a.rcvbuf_bytes = question.rcvbuf_bytes;
  a.formula = usecs->formula;
  a.unresolved = usecs->unresolved;
  if (const Recommendation* so = FindKnob(*recs, Knob::kSoRcvbuf); so != nullptr) {
    if (2 * so->recommended > question.rcvbuf_bytes) {
      a.so_rcvbuf_bytes = so->recommended;
      a.rcvbuf_bytes = 2 * so->recommended;
      a.formula = absl::StrCat(so->formula, "; with rx-usecs ", a.rx_usecs);
    }
    if (!so->unresolved.empty()) {
      absl::StrAppend(&a.unresolved, a.unresolved.empty() ? "" : "; ", so->unresolved);
    }
  }
  a.drop_free = a.unresolved.empty() && (a.plan.drop_free || a.so_rcvbuf_bytes.has_value());
  a.rationale = Rationale(question, a);
  return a;
}

WhatIfHold HoldAt(const WhatIfAdvice& advice, int64_t rx_usecs) {
  const IntervalPlan& plan = advice.plan;
  if (plan.worst_socket.empty()) return {};
  WhatIfHold hold;
  hold.packets =
      BurstAt(plan.worst_burst_inputs, static_cast<double>(rx_usecs) * 1e-6).packets_held;
  hold.rcvbuf_needed_bytes = SaturatingInt64(std::ceil(RcvbufForPackets(
      hold.packets, plan.worst_inputs.truesize_bytes, plan.worst_inputs.margin)));
  return hold;
}

WhatIfInput WhatIfSimulationInput(const WhatIfQuestion& question, int64_t rx_usecs,
                                  int64_t rcvbuf_bytes) {
  WhatIfInput in;
  in.rate_pps = question.rate_pps;
  in.truesize_bytes = question.truesize_bytes;
  in.rcvbuf_bytes = rcvbuf_bytes;
  in.drain_gap_us = question.drain_gap_us;
  in.rx_usecs = rx_usecs;
  in.duration_us = WhatIfDurationUs(question.rate_pps, rx_usecs, question.drain_gap_us);
  in.ring_size =
      question.ring_size.value_or(WhatIfRingThatDoesNotLimit(question.rate_pps, rx_usecs));
  return in;
}

}  // namespace nictune::tuner
