// Softirq count, time and (opt-in) raises per (vector, cpu).
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/softirq.h"
#include "softirq.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_softirq_slot) == 32);

std::unique_ptr<LoadedProbe> LoadSoftirqProbe(const ProbeOptions& options) {
  std::vector<std::string> unused_handlers;
  if (!options.softirq_raise) unused_handlers.push_back("on_softirq_raise");
  return LoadedProbe::Load("softirq", SkeletonOpener<softirq>("softirq", nullptr), unused_handlers);
}

absl::Status ReadSoftirqProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("softirq_slots");
  if (!fd.ok()) return fd.status();
  return ForEachPerCpuArrayEntry<nictune_softirq_slot>(
      *fd, "softirq_slots", NICTUNE_SOFTIRQ_SLOTS,
      [&counters](uint32_t vector, std::span<const nictune_softirq_slot> per_cpu) {
        for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
          const nictune_softirq_slot& slot = per_cpu[cpu];
          if (slot.count == 0 && slot.raised == 0) continue;
          counters.softirqs.push_back(SoftirqCpuCounter{.vector = vector,
                                                        .cpu = static_cast<uint32_t>(cpu),
                                                        .count = slot.count,
                                                        .time_ns = slot.time_ns,
                                                        .raised = slot.raised});
        }
      });
}

}  // namespace nictune::driver::bpf
