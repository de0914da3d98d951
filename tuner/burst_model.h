// How many packets a socket must hold when interrupts come every u. The fill math's
// rate * (u + drain_gap) (fill_math.h) made exact for three things the simulator's scenario matrix
// showed it missing:
// - bursts: what overflows a socket is the rate while traffic flows, not the window's mean;
// - the NAPI cycle: a reader on the softirq's CPU waits for the whole cycle, and the packets that
//   arrive while the cycle runs join it, so one interrupt delivers rate * (u + irq cost) /
//   (1 - rate * packet cost) packets (the per-packet softirq stretch);
// - drain gaps: only the deliveries that complete while the reader is away pile up in the socket,
//   so a gap shorter than a delivery's spacing costs at most one delivery, not u + gap;
// - whole packets: the moderation timer starts at a packet, so a delivery of rate * cycle
//   packets' worth is floor(rate * cycle) + 1 of them, and the next starts with the next packet:
//   deliveries are that many packets' spacing apart (10 kpps at 1000 us behind a 2 ms gap: 2
//   deliveries of 11 = 22 packets, not 20.04).
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
  // Bursts at socket_rate last at most burst_s, at least burst_pause_s apart; burst_s 0 =
  // unknown (the rate is taken to last). Bursts shorter than a drain gap bring less than
  // rate * gap.
  double burst_s = 0;
  double burst_pause_s = 0;
  bool reader_waits_for_napi = false;  // the reader shares the softirq's CPU
};

struct Burst {
  double softirq_load = 0;  // queue_rate * packet_cost
  bool saturated = false;   // softirq_load >= kSaturatedSoftirqLoad: the fields below are +inf
  // Interrupt to interrupt: (u + interrupt cost) / (1 - load) when the reader waits for the
  // cycle; u otherwise (the reader drains while the cycle runs).
  double cycle_s = 0;
  double packets_per_cycle = 0;  // socket_rate * cycle_s
  // Across a drain gap (else 0, 0, 1 and 0: one delivery):
  double packets_per_delivery = 0;  // floor(packets_per_cycle) + 1, at least 1
  double delivery_s = 0;            // packets_per_delivery / socket_rate: delivery to delivery
  // The reader, back from its gap, waits only for a softirq that is running (cycle - u when it
  // waits for NAPI, else 0), not for the moderation timer; so the deliveries that pile up are the
  // ones that complete within gap + that: 1 + floor((gap + processing) / delivery). Sparse cycles
  // (under a packet each) deliver a packet apiece.
  double processing_s = 0;
  double deliveries_per_gap = 1;
  // Their packets arrived from the start of the first one's cycle, at most a cycle before the gap,
  // to the end of the last: within span_s = cycle + gap + processing. bursting_s is the most of
  // it the bursts can fill (span_s when their shape is unknown).
  double span_s = 0;
  double bursting_s = 0;
  // What the socket must hold: one delivery's packets_per_cycle without a gap (UsablePackets'
  // floor(C) - margin covers its rounding up); across a gap the fewer of (deliveries_per_gap - 1) *
  // packets_per_delivery + packets_per_cycle (the last one rounded as without a gap) and
  // floor(rate * bursting_s) + 1, never below packets_per_cycle.
  double packets_held = 0;
  bool held_by_bursts = false;  // the bursts' shape, not the cycle count, decided packets_held
};

// Inputs must be finite and >= 0 (the observation check ensures it); interval_s >= 0.
Burst BurstAt(const BurstInputs& in, double interval_s);

// The most time within span_s that bursts of at most burst_s, at least burst_pause_s apart, can
// fill: the span starting with a burst holds floor(span / (burst + pause)) whole bursts and as
// much of one more as fits. span_s when burst_s is 0 (unknown).
double BurstingWithin(const BurstInputs& in, double span_s);

// Packets a socket of capacity_packets (rcvbuf / truesize) may be asked to hold, keeping margin:
// min((1 - margin) * C, floor(C) - margin). Packets are whole: a 5.9-packet socket takes 5, and
// 5.3 packets' worth of arrivals are 6 packets. Negative when not even one packet fits.
double UsablePackets(double capacity_packets, double margin);

// The rcvbuf that lets a socket hold `packets` with margin (the inverse of UsablePackets):
// max(packets / (1 - margin), ceil(packets + margin)) * truesize.
double RcvbufForPackets(double packets, double truesize_bytes, double margin);

}  // namespace nictune::tuner
