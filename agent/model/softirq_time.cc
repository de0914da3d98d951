#include "agent/model/softirq_time.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::model {

SoftirqTimeEstimate EstimateSoftirqTime(const driver::SoftirqCpuCounter* before,
                                        const driver::SoftirqCpuCounter& after) {
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
  if (estimate.timed_weight == 0) {
    // No timed softirq carried a weight: a source that times every softirq (time_ns is exact),
    // or a window in which the sampler timed none (time_ns is 0).
    estimate.time_ns = static_cast<double>(time_ns);
    estimate.sampled = estimate.timed == 0 && estimate.count > 0 && time_ns == 0;
    return estimate;
  }
  // Every timed softirq weighed 1: none was skipped, and the measured time is the time (a softirq
  // still running at either edge of the window is not extrapolated).
  if (estimate.timed_weight == estimate.timed) {
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
  total.sampled = total.sampled || part.sampled;
}

SoftirqTimeEstimate VectorSoftirqTime(const std::vector<driver::SoftirqCpuCounter>& before,
                                      const std::vector<driver::SoftirqCpuCounter>& after,
                                      uint32_t vector) {
  std::map<uint32_t, const driver::SoftirqCpuCounter*> earlier;
  for (const driver::SoftirqCpuCounter& c : before) {
    if (c.vector == vector) earlier[c.cpu] = &c;
  }
  SoftirqTimeEstimate total;
  for (const driver::SoftirqCpuCounter& c : after) {
    if (c.vector != vector) continue;
    const auto it = earlier.find(c.cpu);
    AddSoftirqTime(EstimateSoftirqTime(it == earlier.end() ? nullptr : it->second, c), total);
  }
  return total;
}

double SoftirqSampleEvery(const SoftirqTimeEstimate& estimate) {
  if (estimate.timed == 0) return 0;
  return static_cast<double>(estimate.timed_weight) / static_cast<double>(estimate.timed);
}

std::string SoftirqTimeSource(const SoftirqTimeEstimate& estimate) {
  if (!estimate.sampled) return "bpf";
  if (estimate.timed == 0) {
    return absl::StrCat("bpf, sampled, none of ", estimate.count, " timed");
  }
  return absl::StrFormat("bpf, sampled 1/%.3g", SoftirqSampleEvery(estimate));
}

}  // namespace nictune::model
