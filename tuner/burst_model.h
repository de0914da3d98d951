// How many packets a socket must hold when interrupts come every u. The fill math's
// rate * (u + drain_gap) (fill_math.h) made exact for three things the simulator's scenario matrix
// showed it missing:
// - bursts: what overflows a socket is the rate while traffic flows, not the window's mean;
// - the NAPI cycle: a reader on the softirq's CPU waits for the whole cycle, and the packets that
//   arrive while the cycle runs join it, so one interrupt delivers rate * (u + irq cost) /
//   (1 - rate * packet cost) packets (the per-packet softirq stretch);
// - drain gaps: only the cycles that overlap the gap pile up in the socket, so a gap shorter than
//   the interval costs nothing and a longer one costs whole cycles, not u + gap.
#pragma once

namespace nictune::tuner {

// Above this softirq load the cycle stretch 1 / (1 - load) has no useful bound: the CPU is
// saturated and neither an interval nor a buffer keeps up.
inline constexpr double kSaturatedSoftirqLoad = 0.95;

struct BurstInputs {
  double socket_rate_pps = 0;   // into the socket while traffic flows (the peak for bursts)
  double queue_rate_pps = 0;    // all packets the queue's NAPI cycle handles, at the same peak
  double packet_cost_s = 0;     // softirq time per packet, the poll's overhead included
  double interrupt_cost_s = 0;  // hard IRQ + fixed poll time per interrupt
  double drain_gap_s = 0;       // longest time the application leaves the socket undrained
  bool reader_waits_for_napi = false;  // the reader shares the softirq's CPU
};

struct Burst {
  double softirq_load = 0;  // queue_rate * packet_cost
  bool saturated = false;   // softirq_load >= kSaturatedSoftirqLoad: the fields below are +inf
  // Interrupt to interrupt: (u + interrupt cost) / (1 - load) when the reader waits for the
  // cycle; u otherwise (the reader drains while the cycle runs).
  double cycle_s = 0;
  double packets_per_cycle = 0;  // socket_rate * cycle_s
  // NAPI cycles one drain gap can overlap: 1 when the gap is shorter than u, else
  // 2 + floor((gap - u) / cycle) (the cycle running when the gap starts and the one running when
  // it ends both count whole, since the reader waits for a cycle to end). When a cycle brings
  // less than one packet, 2 + (gap - u) / cycle unfloored: the cycles are then not back to back
  // (the timer starts at a packet), and the gap holds the arrivals of its span, gap - u + 2 cycles.
  double cycles_per_gap = 1;
  double packets_held = 0;  // cycles_per_gap * packets_per_cycle
};

// Inputs must be finite and >= 0 (the observation check ensures it); interval_s >= 0.
Burst BurstAt(const BurstInputs& in, double interval_s);

// Packets a socket of capacity_packets (rcvbuf / truesize) may be asked to hold, keeping margin:
// min((1 - margin) * C, floor(C) - margin). Packets are whole: a 5.9-packet socket takes 5, and
// 5.3 packets' worth of arrivals are 6 packets. Negative when not even one packet fits.
double UsablePackets(double capacity_packets, double margin);

// The rcvbuf that lets a socket hold `packets` with margin (the inverse of UsablePackets):
// max(packets / (1 - margin), ceil(packets + margin)) * truesize.
double RcvbufForPackets(double packets, double truesize_bytes, double margin);

}  // namespace nictune::tuner
