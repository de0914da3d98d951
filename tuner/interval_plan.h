// SPDX-License-Identifier: Apache-2.0
// The interrupt interval a queue can afford (docs/design.md "The math"): the longest interval, in
// the driver's granularity, that neither overflows a socket fed by the queue (at its peak rate,
// with the NAPI cycle's stretch and its drain gap: burst_model.h) nor the rx ring, and not shorter
// than the cost of interrupts allows; else the cost floor and the buffer the worst socket needs
// there. Coalescing, deferral and rmem policies share it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tuner/burst_model.h"
#include "tuner/confidence.h"
#include "tuner/fill_math.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// What one modelled socket must hold at the plan's interval, and the buffer that holds it.
struct SocketNeed {
  std::string socket;
  bool rcvbuf_locked = false;
  double rcvbuf_bytes = 0;  // sk_rcvbuf now
  double needed_bytes = 0;  // RcvbufForPackets of its hold; +inf when the CPU is saturated
  std::string formula;      // "rcvbuf_needed = ... (socket S, now N B)"
};

struct IntervalPlan {
  // False when neither a socket with traffic nor a ring limit constrains the interval.
  bool constrained = false;
  // Worst socket (smallest drop-free interval); empty when no socket saw packets.
  std::string worst_socket;
  FillInputs worst_inputs;  // mean rate, truesize, rcvbuf, drain gap and margin of the worst socket
  FillResult worst_fill;    // the plain fill math on worst_inputs
  BurstInputs worst_burst_inputs;   // the worst socket's peak rate, costs and drain gap
  // SocketObservation::drain_gap_seen_below_s of the worst socket (+inf: any wait was seen).
  double worst_drain_gap_seen_below_s = std::numeric_limits<double>::infinity();
  Burst worst_burst;                // what it must hold at interval_us (burst_model.h)
  double worst_usable_packets = 0;  // UsablePackets(capacity, margin)
  double reader_softirq_load = 0;   // the cycle stretch's load for a waiting reader (0: own CPU)
  double rx_rate_pps = 0;           // all packets on the queue
  double rx_peak_rate_pps = 0;      // the queue's rate while traffic flows (>= rx_rate_pps)
  double packet_cost_s = 0;         // softirq time per packet: measured, derived or 0 (unknown)
  double ring_limit_s = 0;  // (1 - margin) * ring / peak rx rate - interrupt cost; +inf unknown
  double ring_peak_rate_pps = 0;  // one ring's peak rate: its share of the queue's, or a flow's
  // The longest drop-free interval for every socket and the ring: exact (a supremum: every socket
  // fits just below it) where the drain gap is shorter than it, else the longest multiple of the
  // granularity (up to cap_us) the model admits; 0 when none. +inf when unconstrained.
  double max_interval_s = 0;
  bool some_interval_fits = false;  // some multiple of the granularity, 0 included, is drop-free
  double interrupt_cost_s = 0;
  bool interrupt_cost_measured = false;
  InterruptCeiling ceiling;
  int64_t granularity_us = 1;
  int64_t cap_us = 0;       // largest allowed interval (driver and tuner caps), in granularity
  int64_t interval_us = 0;  // the choice
  // When no interval is drop-free: the longest interval above the cost floor at which no socket
  // holds more than a packet more than at the floor, or, from twice the floor on, more than the
  // floor's plus PolicyConfig::grown_buffer_slack of it (about the same grown buffer, fewer
  // interrupts); chosen when > 0.
  int64_t near_floor_buffer_interval_us = 0;
  bool drop_free = false;      // no socket or ring overflow predicted at interval_us
  // interval_us is below the cost floor because sockets or the ring dropped at the current static
  // interval: a longer one would add to their drops until their buffers or the ring grow, and
  // none of the knobs the controller writes grows a live socket's buffer (rmem_default reaches new
  // sockets; SO_RCVBUF is the application's) or the ring (rx_ring, which a person carries out).
  bool held_for_drops = false;
  int64_t unheld_interval_us = 0;  // when held: the interval chosen without the hold, which the
                                   // socket needs (buffers for new sockets) are sized at
  // The rx ring overflowed at the current static interval more than the queue's stalls explain.
  bool ring_dropped_at_current = false;
  // Sockets or the ring dropped at the current static interval, but no more than arrived while
  // the queue's delivery stalled: the drops are the stall's, not the interval's (tuner/stalls.h).
  bool drops_within_stalls = false;
  bool cpu_saturated = false;  // the softirq cannot keep up at the peak rate (burst_model.h)
  // Every modelled socket's need at interval_us (unheld_interval_us when held), the worst's
  // included: each socket on the default buffer must fit rmem_default, and each that set
  // SO_RCVBUF gets its own advice.
  std::vector<SocketNeed> socket_needs;
  // Non-empty when no interval is drop-free and a bigger socket buffer cannot help either (CPU
  // saturation, ring overrun at the cost floor): why, in words a person can act on.
  std::string unresolved;
  double predicted_interrupt_rate = 0;  // all the observation's rings' vectors together
  std::string formula;  // the arithmetic up to the choice, numbers substituted
  std::vector<Input> inputs;
};

// granularity_us: the knob's step (0 is taken as 1); max_us: the largest value the knob takes.
absl::StatusOr<IntervalPlan> PlanInterval(const QueueObservation& queue, absl::Duration window,
                                          const PolicyConfig& config, uint32_t granularity_us,
                                          int64_t max_us);

// PlanInterval in the queue's own terms, as Recommend() plans it: hardware rx-usecs in the
// driver's granularity up to its maximum and the tuner's cap; without hardware moderation the
// software timer (gro_flush_timeout) in 1 us steps up to its cap.
absl::StatusOr<IntervalPlan> PlanQueueInterval(const QueueObservation& queue,
                                               absl::Duration window, const PolicyConfig& config);

// Lowers the confidence of a recommendation made from `plan` when the worst socket's drain gap
// was not measured up to the waits that would move the plan: those up to its usable fill time,
// (1 - margin) * T_fill, beyond which no interval holds the socket anyway. The reason names the
// limit ("... timed only up to 4200 us, the probe's slots ...").
Confidence WithDrainGapCoverage(Confidence confidence, const IntervalPlan& plan);

// A drain gap longer than the probe's slots saw calls for a shorter interval, an earlier frame
// count, a larger buffer: a move that way is no less sure for the gaps not seen, only perhaps not
// far enough. `planned` where the gaps did not lower it; else `measured`, its reason saying that
// such a gap would only `verb` ("shorten", "raise") the value further.
Confidence TowardLongerGaps(const Confidence& measured, const Confidence& planned,
                            absl::string_view verb);

}  // namespace nictune::tuner
