// The tuner's choices that are policy rather than physics; defaults documented in tuner/README.md.
#pragma once

#include <cstdint>

namespace nictune::tuner {

struct PolicyConfig {
  // Fraction of the fill time kept unused against bursts and rate error: u_max = (1-m)*T_fill -
  // gap.
  double margin = 0.10;
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
  // Weights react only when at least this many packets of poll work were seen.
  uint64_t min_poll_work = 1000;
  // napi_defer_hard_irqs: tolerated probability that a still-active flow re-arms the interrupt
  // because of one empty timer poll.
  double defer_false_rearm_probability = 0.01;
  // A window is fully trusted from this many samples and this many packets on.
  uint32_t full_confidence_samples = 10;
  uint64_t full_confidence_packets = 10000;
};

}  // namespace nictune::tuner
