// SPDX-License-Identifier: Apache-2.0
// Hard IRQ count and handler time per (irq, cpu).
#include "driver/bpf/irq.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "irq.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_irq_slot) == 16);

std::unique_ptr<LoadedProbe> LoadIrqProbe() {
  return LoadedProbe::Load("irq", SkeletonOpener<irq>("irq", nullptr), {});
}

absl::Status ReadIrqProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("irq_slots");
  if (!fd.ok()) return fd.status();
  return ForEachPerCpuArrayEntry<nictune_irq_slot>(
      *fd, "irq_slots", NICTUNE_IRQ_SLOTS + 1,
      [&counters](uint32_t irq, std::span<const nictune_irq_slot> per_cpu) {
        for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
          if (per_cpu[cpu].count == 0) continue;
          if (irq == NICTUNE_IRQ_SLOTS) {
            counters.irq_events_beyond_bound += per_cpu[cpu].count;
            continue;
          }
          counters.irqs.push_back(IrqCpuCounter{.irq = irq,
                                                .cpu = static_cast<uint32_t>(cpu),
                                                .count = per_cpu[cpu].count,
                                                .time_ns = per_cpu[cpu].time_ns});
        }
      });
}

}  // namespace nictune::driver::bpf
