// SPDX-License-Identifier: Apache-2.0
// How many packets a socket must hold when interrupts come every u. The fill math's
// rate * (u + drain_gap) (fill_math.h) made exact for what the simulator's scenario matrix showed
// it missing:
// - bursts: what overflows a socket is the rate while traffic flows, not the window's mean;
// - the NAPI cycle: a reader on the softirq's CPU waits for the whole cycle, and the packets that
//   arrive while the cycle runs join it, so one interrupt delivers rate * (u + irq cost) /
//   (1 - rate * packet cost) packets' worth (the per-packet softirq stretch);
// - whole packets: the moderation timer starts at a packet, so a delivery of rate * cycle
//   packets' worth is P = floor(rate * cycle) + 1 of them, and the next starts with the next
//   packet: deliveries are P / rate apart. A socket holds whole packets too, so a delivery fits
//   when P packets' truesize fits (seed 001: 71 whole packets, 87 us drop-free, 88 us not);
// - drain gaps: only the deliveries that complete while the reader is away pile up in the socket,
//   so a gap shorter than a delivery's spacing costs nothing, not u + gap (10 kpps at 1000 us
//   behind a 2 ms gap: 2 deliveries of 11 = 22 packets);
// - what a gap can bring: bursts shorter than the gap, or a measured most-packets-per-gap, bound
//   the pile-up below the peak rate times the gap.
#pragma once

namespace nictune::tuner {

// Above this softirq load the cycle stretch 1 / (1 - load) has no useful bound: the CPU is
// saturated and neither an interval nor a buffer keeps up.
inline constexpr double kSaturatedSoftirqLoad = 0.95;

// Arrival and timer times are whole nanoseconds (the kernel's clock, and the simulator's): a
// packet due within this of a span's end may fall inside it. Counting it also keeps a span of an
// exact number of packets' spacing (5 Mpps for 20 us: 100) from rounding down in floating point.
inline constexpr double kClockResolutionS = 1e-9;

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
  // The most packets that arrived for the socket within any stretch as long as drain_gap_s; 0 =
  // unknown (socket_rate * gap, or the bursts' share of it).
  double max_packets_per_gap = 0;
  bool reader_waits_for_napi = false;  // the reader shares the softirq's CPU
};

struct Burst {
  double softirq_load = 0;  // queue_rate * packet_cost
  bool saturated = false;   // softirq_load >= kSaturatedSoftirqLoad: the fields below are +inf
  // Interrupt to interrupt: (u + interrupt cost) / (1 - load) when the reader waits for the
  // cycle; u otherwise (the reader drains while the cycle runs).
  double cycle_s = 0;
  double packets_per_cycle = 0;     // socket_rate * cycle_s: packets' worth, not whole packets
  double packets_per_delivery = 0;  // WholePacketsWithin(rate, cycle) (0 at no rate)
  double delivery_s = 0;            // packets_per_delivery / socket_rate: delivery to delivery
  // Across a drain gap (else 0, 1 and 0): the reader, back from its gap, waits only for a softirq
  // that is running (cycle - u when it waits for NAPI, else 0), not for the moderation timer; so
  // the deliveries that pile up are the ones that complete within gap + that:
  // 1 + floor((gap + processing + kClockResolutionS) / delivery). Sparse cycles (under a packet
  // each) deliver a packet apiece.
  double processing_s = 0;
  double deliveries_per_gap = 1;
  // Their packets arrived from the start of the first one's cycle, at most a cycle before the gap,
  // to the end of the last: within span_s = cycle + gap + processing. bursting_s is the most of
  // it the bursts can fill (span_s when their shape is unknown).
  double span_s = 0;
  double bursting_s = 0;
  // What the socket must hold, in whole packets: one delivery without a gap; across a gap the
  // fewest of deliveries_per_gap * packets_per_delivery, WholePacketsWithin(rate, bursting_s) and
  // (when measured) max_packets_per_gap + WholePacketsWithin(rate, span_s - gap); never below one
  // delivery.
  double packets_held = 0;
  bool held_by_bursts = false;  // the bursts' shape or the measured packets per gap decided it
};

// Inputs must be finite and >= 0 (the observation check ensures it); interval_s >= 0.
Burst BurstAt(const BurstInputs& in, double interval_s);

// The most whole packets at rate_pps that arrive within span_s from one of them:
// floor(rate * (span + kClockResolutionS)) + 1.
double WholePacketsWithin(double rate_pps, double span_s);

// The most time within span_s that bursts of at most burst_s, at least burst_pause_s apart, can
// fill: the span starting with a burst holds floor(span / (burst + pause)) whole bursts and as
// much of one more as fits. span_s when burst_s is 0 (unknown).
double BurstingWithin(const BurstInputs& in, double span_s);

// Packets a socket of capacity_packets (rcvbuf / truesize) may be asked to hold, keeping margin:
// (1 - margin) * C. Held packets are whole, so at margin 0 a 71.14-packet socket takes 71, and a
// 5.9-packet one at margin 0.1 (5.31) takes 5. Below 1 not even one packet fits.
double UsablePackets(double capacity_packets, double margin);

// The rcvbuf that lets a socket hold `packets` with margin (the inverse of UsablePackets):
// packets / (1 - margin) * truesize.
double RcvbufForPackets(double packets, double truesize_bytes, double margin);

}  // namespace nictune::tuner
