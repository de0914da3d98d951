// SPDX-License-Identifier: Apache-2.0
// Softirq count, sampled time and (opt-in) raises per (vector, cpu).
#include <algorithm>

#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/softirq.h"
#include "driver/bpf/softirq_sampler.h"
#include "softirq.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_softirq_vector) == 40);
static_assert(sizeof(nictune_softirq_cpu) == 56 + 40 * NICTUNE_SOFTIRQ_SLOTS);

std::unique_ptr<LoadedProbe> LoadSoftirqProbe(const ProbeOptions& options) {
  std::vector<std::string> unused_handlers;
  if (!options.softirq_raise) unused_handlers.push_back("on_softirq_raise");
  constexpr uint64_t kNsPerSecond = 1'000'000'000;
  const uint32_t max_shift =
      std::min<uint32_t>(options.softirq_max_sample_shift, NICTUNE_SOFTIRQ_SHIFT_LIMIT);
  const uint64_t ns_per_timed = kNsPerSecond / std::max<uint64_t>(options.softirq_timed_per_s, 1);
  return LoadedProbe::Load("softirq",
                           SkeletonOpener<softirq>("softirq",
                                                   [max_shift, ns_per_timed](softirq& skeleton) {
                                                     skeleton.rodata->max_shift = max_shift;
                                                     skeleton.rodata->ns_per_timed = ns_per_timed;
                                                   }),
                           unused_handlers);
}

absl::Status ReadSoftirqProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("softirq_cpus");
  if (!fd.ok()) return fd.status();
  return ForEachPerCpuArrayEntry<nictune_softirq_cpu>(
      *fd, "softirq_cpus", 1, [&counters](uint32_t, std::span<const nictune_softirq_cpu> per_cpu) {
        for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
          for (uint32_t vector = 0; vector < NICTUNE_SOFTIRQ_SLOTS; ++vector) {
            const nictune_softirq_vector& slot = per_cpu[cpu].vectors[vector];
            if (slot.count == 0 && slot.raised == 0) continue;
            counters.softirqs.push_back(SoftirqCpuCounter{.vector = vector,
                                                          .cpu = static_cast<uint32_t>(cpu),
                                                          .count = slot.count,
                                                          .time_ns = slot.time_ns,
                                                          .raised = slot.raised,
                                                          .timed = slot.timed,
                                                          .timed_weight = slot.timed_weight});
          }
        }
      });
}

}  // namespace nictune::driver::bpf
