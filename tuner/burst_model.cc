// SPDX-License-Identifier: Apache-2.0
#include "tuner/burst_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nictune::tuner {
namespace {

// Across a drain gap: the whole deliveries that complete while the reader is away, unless what
// the gap can bring (the bursts' shape, the measured packets per gap) bounds them lower.
void HoldAcrossGap(const BurstInputs& in, double interval_s, Burst& b) {
  b.processing_s = in.reader_waits_for_napi ? b.cycle_s - interval_s : 0;
  b.deliveries_per_gap =
      1 + std::floor((in.drain_gap_s + b.processing_s + kClockResolutionS) / b.delivery_s);
  b.packets_held = b.deliveries_per_gap * b.packets_per_delivery;
  b.span_s = b.cycle_s + in.drain_gap_s + b.processing_s;
  b.bursting_s = BurstingWithin(in, b.span_s);
  double arrivals = WholePacketsWithin(in.socket_rate_pps, b.bursting_s);
  if (in.max_packets_per_gap > 0) {
    // The span is one gap's stretch and the cycle and softirq around it.
    const double rest = WholePacketsWithin(in.socket_rate_pps, b.span_s - in.drain_gap_s);
    arrivals = std::min(arrivals, std::ceil(in.max_packets_per_gap) + rest);
  }
  if (arrivals < b.packets_held) {
    b.packets_held = arrivals;
    b.held_by_bursts = true;
  }
  // Never below the hold without a gap, which does not use what the gap can bring.
  b.packets_held = std::max(b.packets_held, b.packets_per_delivery);
}

}  // namespace

Burst BurstAt(const BurstInputs& in, double interval_s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Burst b;
  b.softirq_load = in.queue_rate_pps * in.packet_cost_s;
  if (in.reader_waits_for_napi && b.softirq_load >= kSaturatedSoftirqLoad) {
    b.saturated = true;
    b.cycle_s = b.packets_per_cycle = b.packets_per_delivery = b.deliveries_per_gap =
        b.packets_held = kInf;
    return b;
  }
  b.cycle_s = in.reader_waits_for_napi ? (interval_s + in.interrupt_cost_s) / (1 - b.softirq_load)
                                       : interval_s;
  b.packets_per_cycle = in.socket_rate_pps * b.cycle_s;
  if (in.socket_rate_pps <= 0) return b;
  // The timer starts at a packet: the delivery holds that one and every packet up to the end of
  // the cycle.
  b.packets_per_delivery = WholePacketsWithin(in.socket_rate_pps, b.cycle_s);
  b.delivery_s = b.packets_per_delivery / in.socket_rate_pps;
  b.packets_held = b.packets_per_delivery;
  if (in.drain_gap_s > 0) HoldAcrossGap(in, interval_s, b);
  return b;
}

double WholePacketsWithin(double rate_pps, double span_s) {
  return std::floor(rate_pps * (span_s + kClockResolutionS)) + 1;
}

double BurstingWithin(const BurstInputs& in, double span_s) {
  if (in.burst_s <= 0) return span_s;
  const double period = in.burst_s + in.burst_pause_s;
  const double whole = std::floor(span_s / period);
  const double bursting = whole * in.burst_s + std::min(span_s - whole * period, in.burst_s);
  // A burst too short for the arithmetic (a denormal) bounds nothing.
  return std::isfinite(bursting) ? std::clamp(bursting, 0.0, span_s) : span_s;
}

double UsablePackets(double capacity_packets, double margin) {
  return (1 - margin) * capacity_packets;
}

double RcvbufForPackets(double packets, double truesize_bytes, double margin) {
  return packets / (1 - margin) * truesize_bytes;
}

}  // namespace nictune::tuner
