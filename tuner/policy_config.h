// SPDX-License-Identifier: Apache-2.0
// The tuner's choices that are policy rather than physics; defaults documented in tuner/README.md.
#pragma once

#include <cstdint>

namespace nictune::tuner {

// One default for the tuner, the what-if and nictuned's --tuner_margin. The whole-packet model is
// drop-free in every scenario of the simulator's matrix at margin 0, with no false claim; each
// point of margin costs about a point of interrupts on a steady flow, and on a socket of a few
// packets a whole packet (0.05: 1.25x of the optimum; 0.01 keeps every comparable scenario
// within 1.05x). Interrupts are not on time, though: the emulated NIC's closed loop, whose
// interrupts come up to 2.7 ms late on this VM, kept dropping past 5 windows in 2 of 3 runs at
// 0.01; at 0.05 it settles (tests/bpf/closed_loop_test.cc, tuner/README.md). Random arrivals are
// not the margin's to cover: drops at the current interval back off by dropped_backoff
// (tuner/README.md).
inline constexpr double kDefaultMargin = 0.05;

struct PolicyConfig {
  // Fraction of the fill time kept unused against bursts and rate error: u_max = (1-m)*T_fill -
  // gap.
  double margin = kDefaultMargin;
  // Drops seen at the current static interval outweigh the model (random arrivals overrun what
  // it predicts for a steady flow): the interval then stays below (1 - this) * current, whatever
  // the margin. At margin 0 a back-off tied to the margin kept a dropping 84 us for 30 minutes.
  double dropped_backoff = 0.10;
  // An interval that drops nothing beyond what stalls explain is kept while the plan's is within
  // this share of the margin of it: the plan follows each window's measured rate, whose noise is
  // what the margin absorbs, so a smaller step chases that noise and gains nothing.
  double keep_within_margin_share = 0.5;
  // When the buffer must grow anyway: an interval at least twice the cost floor's is taken if it
  // needs at most this share more buffer than the floor (or one packet). Behind a drain gap the
  // hold barely grows with the interval, so this buys many times fewer interrupts.
  double grown_buffer_slack = 0.10;
  // Interrupt + fixed poll overhead may use at most this share of one CPU: the interrupt-rate
  // ceiling is share / cost per interrupt.
  double interrupt_cpu_share = 0.10;
  // Seed 000's fair share: when softirq holds the CPU and user space gets less than this (with no
  // idle left), budgets come down so that ksoftirqd competes with applications.
  double user_fair_share = 0.25;
  // Budgets go up only while softirq uses less than this share of the queue's CPUs.
  double softirq_cap = 0.50;
  // time_squeeze events per second below which budgets are left alone.
  double min_time_squeeze_per_s = 1.0;
  // napi_defer_hard_irqs: tolerated probability that a still-active flow re-arms the interrupt
  // because of one empty timer poll.
  double defer_false_rearm_probability = 0.01;
  // A ring that neither overflows nor dropped is grown only when the longer interval it allows
  // saves at least this share of one CPU in interrupts: most drivers restart the device's queues
  // to resize a ring, which a person does not do for less.
  double ring_min_cpu_saving = 0.01;
  // Threaded NAPI is recommended for a device whose softirq starves user space only while the
  // rest of the host idles at least this many CPUs: where its threads can go.
  double threaded_min_idle_cpus = 0.5;
  // A window is fully trusted from this many samples and this many packets on.
  uint32_t full_confidence_samples = 10;
  uint64_t full_confidence_packets = 10000;
};

}  // namespace nictune::tuner
