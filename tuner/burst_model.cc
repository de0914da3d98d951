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
    b.cycle_s = b.packets_per_cycle = b.cycles_per_gap = b.packets_held = kInf;
    return b;
  }
  b.cycle_s = in.reader_waits_for_napi ? (interval_s + in.interrupt_cost_s) / (1 - b.softirq_load)
                                       : interval_s;
  b.packets_per_cycle = in.socket_rate_pps * b.cycle_s;
  if (in.drain_gap_s > 0 && in.drain_gap_s >= interval_s) {
    // A zero cycle (interrupt per packet, nothing else costs time) is one packet's spacing.
    const double cycle =
        b.cycle_s > 0 ? b.cycle_s : (in.socket_rate_pps > 0 ? 1 / in.socket_rate_pps : kInf);
    b.packets_per_cycle = in.socket_rate_pps * cycle;
    const double cycles_inside = (in.drain_gap_s - interval_s) / cycle;
    // Less than a packet per cycle: the timer starts at a packet, so cycles are not back to back
    // and most would be empty; the gap holds the packets of its span, gap - u + 2 cycles, which is
    // the whole-cycle count's upper bound (not a whole packet per cycle).
    b.cycles_per_gap = 2 + (b.packets_per_cycle >= 1 ? std::floor(cycles_inside) : cycles_inside);
  }
  b.packets_held = b.cycles_per_gap * b.packets_per_cycle;
  return b;
}

double UsablePackets(double capacity_packets, double margin) {
  return std::min((1 - margin) * capacity_packets, std::floor(capacity_packets) - margin);
}

double RcvbufForPackets(double packets, double truesize_bytes, double margin) {
  return std::max(packets / (1 - margin), std::ceil(packets + margin)) * truesize_bytes;
}

}  // namespace nictune::tuner
