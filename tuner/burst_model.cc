#include "tuner/burst_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nictune::tuner {

Burst BurstAt(const BurstInputs& in, double interval_s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Burst b;
  b.softirq_load = in.queue_rate_pps * in.packet_cost_s;
  if (in.reader_waits_for_napi && b.softirq_load >= kSaturatedSoftirqLoad) {
    b.saturated = true;
    b.cycle_s = b.packets_per_cycle = b.deliveries_per_gap = b.packets_held = kInf;
    return b;
  }
  b.cycle_s = in.reader_waits_for_napi ? (interval_s + in.interrupt_cost_s) / (1 - b.softirq_load)
                                       : interval_s;
  b.packets_per_cycle = in.socket_rate_pps * b.cycle_s;
  b.packets_held = b.packets_per_cycle;
  if (in.drain_gap_s > 0 && in.socket_rate_pps > 0) {
    b.packets_per_delivery = std::floor(b.packets_per_cycle) + 1;
    b.delivery_s = b.packets_per_delivery / in.socket_rate_pps;
    b.processing_s = in.reader_waits_for_napi ? b.cycle_s - interval_s : 0;
    b.deliveries_per_gap = 1 + std::floor((in.drain_gap_s + b.processing_s) / b.delivery_s);
    // The last delivery's rounding up to whole packets is UsablePackets' floor(C) - margin, as for
    // one delivery without a gap.
    b.packets_held = (b.deliveries_per_gap - 1) * b.packets_per_delivery + b.packets_per_cycle;
    b.span_s = b.cycle_s + in.drain_gap_s + b.processing_s;
    b.bursting_s = BurstingWithin(in, b.span_s);
    const double arrivals = std::floor(in.socket_rate_pps * b.bursting_s) + 1;
    if (arrivals < b.packets_held) {
      b.packets_held = arrivals;
      b.held_by_bursts = true;
    }
    // Never below the hold without a gap, which does not use the bursts' shape.
    b.packets_held = std::max(b.packets_held, b.packets_per_cycle);
  }
  return b;
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
  return std::min((1 - margin) * capacity_packets, std::floor(capacity_packets) - margin);
}

double RcvbufForPackets(double packets, double truesize_bytes, double margin) {
  return std::max(packets / (1 - margin), std::ceil(packets + margin)) * truesize_bytes;
}

}  // namespace nictune::tuner
