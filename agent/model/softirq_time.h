// Softirq time over a window from the probes' sampled counters. Every softirq is counted but only
// a pseudo-random sample is timed (driver/bpf/softirq.bpf.c), each timed one weighted by the
// inverse of its chance (2^shift); the window scales the sample's time to every softirq counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/probe_source.h"

namespace nictune::model {

struct SoftirqTimeEstimate {
  uint64_t count = 0;         // softirqs in the window
  uint64_t timed = 0;         // of which timed
  uint64_t timed_weight = 0;  // sum of the timed ones' weights (2^shift each)
  double time_ns = 0;         // the time of all `count` softirqs
  // False when every softirq of the window was timed (time_ns is then exact); true when time_ns
  // is scaled from a sample, or is 0 because softirqs ran and none of them was timed.
  bool sampled = false;
};

// The window's estimate for one (vector, cpu) between two cumulative readings; `before` is null
// when the counter first appears in `after`. When a count went down the probes were reloaded and
// `after` counts from zero; time_ns alone going down wrapped (the modular difference is used).
//
// time_ns = time_delta * count_delta / timed_weight_delta: the mean time of a timed softirq
// (weights included, so that windows in which the per-CPU sampling rate changed are not biased
// towards the better-sampled part) times the exact count. With no timed softirq the ratio is
// undefined and time_delta stands: 0 from the probes.
SoftirqTimeEstimate EstimateSoftirqTime(const driver::SoftirqCpuCounter* before,
                                        const driver::SoftirqCpuCounter& after);

// Adds `part` (another vector of the same CPU, say) to `total`.
void AddSoftirqTime(const SoftirqTimeEstimate& part, SoftirqTimeEstimate& total);

// One vector's time over every CPU between two readings of the probes, each CPU estimated as
// above (a CPU absent from `before` counts from zero) and the CPUs added up.
SoftirqTimeEstimate VectorSoftirqTime(const std::vector<driver::SoftirqCpuCounter>& before,
                                      const std::vector<driver::SoftirqCpuCounter>& after,
                                      uint32_t vector);

// One in how many softirqs was timed, on average over the timed ones (timed_weight / timed): 8
// when one in 8 was timed throughout, 1 when all were; 0 when none was timed.
double SoftirqSampleEvery(const SoftirqTimeEstimate& estimate);

// The source of a softirq time: "bpf" when exact, "bpf, sampled 1/8" when scaled from a sample,
// "bpf, sampled, none of 3 timed" when softirqs ran and none was timed.
std::string SoftirqTimeSource(const SoftirqTimeEstimate& estimate);

}  // namespace nictune::model
