// SPDX-License-Identifier: Apache-2.0
#include "tests/support/softirq_reading.h"

#include "agent/procfs/read_file.h"

namespace nictune::testing_support {

absl::StatusOr<SoftirqReading> ReadSoftirqs(driver::ProbeSource& probes) {
  absl::StatusOr<std::string> text = procfs::ReadFile("/proc/softirqs");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::SoftirqTable> table = procfs::ParseSoftirqs(*text);
  if (!table.ok()) return table.status();
  absl::StatusOr<driver::BpfCounters> counters = probes.Read();
  if (!counters.ok()) return counters.status();
  return SoftirqReading{.proc = *std::move(table), .bpf = *std::move(counters)};
}

model::SoftirqTimeEstimate VectorTime(const SoftirqReading& before, const SoftirqReading& after,
                                      uint32_t vector) {
  return model::VectorSoftirqTime(before.bpf, after.bpf, vector, &before.proc, &after.proc);
}

uint64_t ProcVectorCount(const SoftirqReading& before, const SoftirqReading& after,
                         uint32_t vector) {
  uint64_t total = 0;
  for (const auto& [cpu, count] : model::ProcSoftirqCounts(before.proc, after.proc, vector)) {
    total += count;
  }
  return total;
}

}  // namespace nictune::testing_support
