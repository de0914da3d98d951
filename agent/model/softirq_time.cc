// SPDX-License-Identifier: Apache-2.0
#include "agent/model/softirq_time.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/model/counter_delta.h"

namespace nictune::model {

double SoftirqTimedShare(const driver::BpfCounters& before, const driver::BpfCounters& after) {
  const uint64_t untimed =
      ResettingDelta64(before.softirq_duty.untimed_ns, after.softirq_duty.untimed_ns);
  if (untimed == 0) return 1;
  if (after.monotonic_ns <= before.monotonic_ns) return 1;
  const double elapsed = static_cast<double>(after.monotonic_ns - before.monotonic_ns);
  return std::clamp(1 - static_cast<double>(untimed) / elapsed, 0.0, 1.0);
}

std::map<int, uint64_t> ProcSoftirqCounts(const procfs::SoftirqTable& before,
                                          const procfs::SoftirqTable& after, uint32_t vector) {
  std::map<int, uint64_t> counts;
  const procfs::SoftirqRow* a = procfs::FindSoftirqRow(before, vector);
  const procfs::SoftirqRow* b = procfs::FindSoftirqRow(after, vector);
  if (a == nullptr || b == nullptr) return counts;
  for (size_t j = 0; j < after.cpu_ids.size() && j < b->per_cpu.size(); ++j) {
    const int cpu = after.cpu_ids[j];
    const std::optional<uint64_t> earlier = procfs::SoftirqCountOn(before, *a, cpu);
    if (earlier) counts[cpu] = ResettingDelta64(*earlier, b->per_cpu[j]);
  }
  return counts;
}

SoftirqTimeEstimate EstimateSoftirqTime(const driver::SoftirqCpuCounter* before,
                                        const driver::SoftirqCpuCounter& after,
                                        const SoftirqWindowCounts& window) {
  const driver::SoftirqCpuCounter zero;
  // Counts grow by one per event and never wrap; when one went down the probes were reloaded and
  // every field restarted together. Otherwise the differences are modular, which is also right
  // for time_ns, the one field that could wrap (it grows by up to 2^shift ns per ns).
  const bool restarted =
      before != nullptr && (after.count < before->count || after.timed < before->timed ||
                            after.timed_weight < before->timed_weight);
  const driver::SoftirqCpuCounter& base = before == nullptr || restarted ? zero : *before;
  SoftirqTimeEstimate estimate{.count = after.count - base.count,
                               .timed = after.timed - base.timed,
                               .timed_weight = after.timed_weight - base.timed_weight};
  const uint64_t time_ns = after.time_ns - base.time_ns;
  const bool duty_cycled = window.timed_share < 1;
  if (duty_cycled) {
    estimate.timed_share = window.timed_share;
    // The probes saw only the softirqs of their slots: count them all from /proc/softirqs.
    estimate.count = window.exact_count.value_or(static_cast<uint64_t>(
        std::llround(static_cast<double>(estimate.count) / std::max(window.timed_share, 1e-9))));
  }
  if (estimate.timed_weight == 0) {
    // No timed softirq carried a weight: a source that times every softirq (time_ns is exact),
    // or a window in which none was timed (time_ns is 0).
    estimate.time_ns = static_cast<double>(time_ns);
    estimate.sampled = estimate.count > 0 && (duty_cycled || (estimate.timed == 0 && time_ns == 0));
    return estimate;
  }
  // Every softirq of the window timed with weight 1: the measured time is the time (a softirq
  // still running at either edge of the window is not extrapolated).
  if (!duty_cycled && estimate.timed_weight == estimate.timed) {
    estimate.time_ns = static_cast<double>(time_ns);
    return estimate;
  }
  // In doubles: time_ns * count overflows 64 bits long before either does.
  estimate.time_ns = static_cast<double>(time_ns) * (static_cast<double>(estimate.count) /
                                                     static_cast<double>(estimate.timed_weight));
  estimate.sampled = true;
  return estimate;
}

void AddSoftirqTime(const SoftirqTimeEstimate& part, SoftirqTimeEstimate& total) {
  total.count += part.count;
  total.timed += part.timed;
  total.timed_weight += part.timed_weight;
  total.time_ns += part.time_ns;
  total.timed_share = std::min(total.timed_share, part.timed_share);
  total.sampled = total.sampled || part.sampled;
}

std::vector<SoftirqCpuEstimate> EstimateSoftirqTimes(const driver::BpfCounters& before,
                                                     const driver::BpfCounters& after,
                                                     const procfs::SoftirqTable* proc_before,
                                                     const procfs::SoftirqTable* proc_after) {
  std::map<std::pair<uint32_t, uint32_t>, const driver::SoftirqCpuCounter*> earlier;
  for (const driver::SoftirqCpuCounter& c : before.softirqs) earlier[{c.vector, c.cpu}] = &c;
  const double timed_share = SoftirqTimedShare(before, after);
  // /proc/softirqs' counts are needed only while the probes counted part of the window.
  const bool count_from_proc = proc_before != nullptr && proc_after != nullptr && timed_share < 1;
  // Each vector's /proc counts, looked up once per window.
  std::map<uint32_t, std::map<int, uint64_t>> proc_counts;
  const auto proc_count = [&](uint32_t vector, int cpu) -> std::optional<uint64_t> {
    auto it = proc_counts.find(vector);
    if (it == proc_counts.end()) {
      it = proc_counts.emplace(vector, ProcSoftirqCounts(*proc_before, *proc_after, vector)).first;
    }
    const auto count = it->second.find(cpu);
    if (count == it->second.end()) return std::nullopt;
    return count->second;
  };
  std::vector<SoftirqCpuEstimate> estimates;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const driver::SoftirqCpuCounter& c : after.softirqs) {
    SoftirqWindowCounts window{.timed_share = timed_share};
    if (count_from_proc) window.exact_count = proc_count(c.vector, static_cast<int>(c.cpu));
    const auto it = earlier.find({c.vector, c.cpu});
    estimates.push_back(
        {c.vector, c.cpu,
         EstimateSoftirqTime(it == earlier.end() ? nullptr : it->second, c, window)});
    seen.insert({c.vector, c.cpu});
  }
  if (!count_from_proc) return estimates;
  constexpr uint32_t kKnownVectors = 10;  // the names procfs::SoftirqVectorName knows
  for (uint32_t vector = 0; vector < kKnownVectors; ++vector) {
    for (const int cpu : proc_after->cpu_ids) {
      if (cpu < 0 || seen.contains({vector, static_cast<uint32_t>(cpu)})) continue;
      const std::optional<uint64_t> count = proc_count(vector, cpu);
      if (!count || *count == 0) continue;
      estimates.push_back(
          {vector, static_cast<uint32_t>(cpu),
           SoftirqTimeEstimate{.count = *count, .timed_share = timed_share, .sampled = true}});
    }
  }
  return estimates;
}

SoftirqTimeEstimate VectorSoftirqTime(const driver::BpfCounters& before,
                                      const driver::BpfCounters& after, uint32_t vector,
                                      const procfs::SoftirqTable* proc_before,
                                      const procfs::SoftirqTable* proc_after) {
  SoftirqTimeEstimate total;
  for (const SoftirqCpuEstimate& part :
       EstimateSoftirqTimes(before, after, proc_before, proc_after)) {
    if (part.vector == vector) AddSoftirqTime(part.estimate, total);
  }
  return total;
}

double SoftirqSampleEvery(const SoftirqTimeEstimate& estimate) {
  if (estimate.timed == 0) return 0;
  return static_cast<double>(estimate.timed_weight) / static_cast<double>(estimate.timed);
}

std::string SoftirqTimeSource(const SoftirqTimeEstimate& estimate) {
  if (!estimate.sampled) return "bpf";
  // Duty-cycled, the weights stand for the slots' share of the time as well: the share says it.
  std::string source = estimate.timed_share < 1 ? absl::StrFormat("bpf, timed %.2g%% of the time",
                                                                  100 * estimate.timed_share)
                                                : "bpf, sampled";
  if (estimate.timed == 0) {
    absl::StrAppend(&source, ", none of ", estimate.count, " timed");
  } else if (estimate.timed_share >= 1) {
    absl::StrAppendFormat(&source, " 1/%.3g", SoftirqSampleEvery(estimate));
  }
  return source;
}

}  // namespace nictune::model
