// SPDX-License-Identifier: Apache-2.0
// Softirq time over a window from the probes' timed softirqs. The probes time a sample
// (driver/bpf/README.md "The probe budget"): softirq_entry/exit are attached for short slots only
// when softirqs are frequent (duty-cycled; the probes then count only the slots' softirqs, so the
// exact counts come from /proc/softirqs), and while attached they may time one softirq in 2^shift;
// each timed one is weighted by the softirqs it stands for. The window's time is the ratio
// estimator: the weighted time of the timed softirqs over their weight, times the exact count.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/procfs/softirqs.h"
#include "driver/probe_source.h"

namespace nictune::model {

struct SoftirqTimeEstimate {
  // Softirqs in the window: the probes' own count while they were attached throughout, else the
  // count /proc/softirqs gives.
  uint64_t count = 0;
  uint64_t timed = 0;         // of which timed
  uint64_t timed_weight = 0;  // sum of the timed ones' weights (slot weight << shift each)
  double time_ns = 0;         // the time of all `count` softirqs
  // Share of the window's time during which softirqs that started were timed (1: throughout, the
  // probes counted and timed every one).
  double timed_share = 1;
  // False when every softirq of the window was timed (time_ns is then exact); true when time_ns
  // is scaled from a sample, or is 0 because softirqs ran and none of them was timed.
  bool sampled = false;
};

// What the window knows beyond one (vector, cpu)'s two readings.
struct SoftirqWindowCounts {
  double timed_share = 1;  // SoftirqTimedShare
  // The vector's count on that CPU over the window from /proc/softirqs, when it was read.
  std::optional<uint64_t> exact_count;
};

// Share of the time between two readings of the probes that softirqs were timed, from their
// duty-cycle counters (exactly 1 when timing was never off).
double SoftirqTimedShare(const driver::BpfCounters& before, const driver::BpfCounters& after);

// The counts of `vector` between two /proc/softirqs tables, by CPU id, on the CPUs both have (a
// count that went down restarted from zero); empty when either lacks the vector.
std::map<int, uint64_t> ProcSoftirqCounts(const procfs::SoftirqTable& before,
                                          const procfs::SoftirqTable& after, uint32_t vector);

// The window's estimate for one (vector, cpu) between two cumulative readings; `before` is null
// when the counter first appears in `after`. When a count went down the probes were reloaded and
// `after` counts from zero; time_ns alone going down wrapped (the modular difference is used).
//
// While timing was on throughout, the count is the probes' and the time is
// time_delta * count / timed_weight_delta: the mean time of a timed softirq (weights included,
// so that windows in which the per-CPU sampling rate changed are not biased towards the
// better-sampled part) times the count. When timing was off for part of the window (the
// programs were detached, or attached at a slot's edges), the count is `window.exact_count`
// (without one, the probes' count over the timed share: approximate, since they count at the
// edges too), and the time is scaled the same way to that count. With no timed softirq the ratio is
// undefined and time_delta stands: 0 from the probes.
SoftirqTimeEstimate EstimateSoftirqTime(const driver::SoftirqCpuCounter* before,
                                        const driver::SoftirqCpuCounter& after,
                                        const SoftirqWindowCounts& window = {});

// Adds `part` (another vector of the same CPU, say) to `total`.
void AddSoftirqTime(const SoftirqTimeEstimate& part, SoftirqTimeEstimate& total);

struct SoftirqCpuEstimate {
  uint32_t vector = 0;
  uint32_t cpu = 0;
  SoftirqTimeEstimate estimate;
};

// Every (vector, cpu) between two readings of the probes, each estimated as above (a counter
// absent from `before` counts from zero), given the /proc/softirqs tables read around them (null
// when unread). While softirq_entry was duty-cycled, each counts from /proc/softirqs, and a
// (vector, cpu) that only /proc/softirqs has (none of its softirqs fell in a slot) is included
// with its count and no time.
std::vector<SoftirqCpuEstimate> EstimateSoftirqTimes(const driver::BpfCounters& before,
                                                     const driver::BpfCounters& after,
                                                     const procfs::SoftirqTable* proc_before,
                                                     const procfs::SoftirqTable* proc_after);

// One vector's time over every CPU: the CPUs of EstimateSoftirqTimes added up.
SoftirqTimeEstimate VectorSoftirqTime(const driver::BpfCounters& before,
                                      const driver::BpfCounters& after, uint32_t vector,
                                      const procfs::SoftirqTable* proc_before = nullptr,
                                      const procfs::SoftirqTable* proc_after = nullptr);

// How many softirqs a timed one stood for, on average (timed_weight / timed): 8 when one in 8 was
// timed throughout, 1 when all were; 0 when none was timed.
double SoftirqSampleEvery(const SoftirqTimeEstimate& estimate);

// The source of a softirq time: "bpf" when exact; "bpf, timed 6.2% of the time" when the timing
// programs were duty-cycled, else "bpf, sampled 1/8" when they timed one in 8; with ", none of 3
// timed" when softirqs ran and none was timed.
std::string SoftirqTimeSource(const SoftirqTimeEstimate& estimate);

}  // namespace nictune::model
