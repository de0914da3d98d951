// SPDX-License-Identifier: Apache-2.0
// Softirq time shares per CPU from the BPF probes' timing (agent/model/softirq_time.h).
#include <map>

#include "agent/model/softirq_time.h"
#include "agent/model/window_parts.h"

namespace nictune::model::internal {

void AddSoftirqTimes(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  const bool proc = before.softirqs && after.softirqs;
  std::map<uint32_t, SoftirqTimeEstimate> per_cpu;
  for (const SoftirqCpuEstimate& part :
       EstimateSoftirqTimes(*before.bpf, *after.bpf, proc ? &*before.softirqs : nullptr,
                            proc ? &*after.softirqs : nullptr)) {
    const SoftirqTimeEstimate& estimate = part.estimate;
    const int cpu_id = static_cast<int>(part.cpu);
    AddSoftirqTime(estimate, per_cpu[part.cpu]);
    if (estimate.count > 0 || estimate.time_ns > 0) {
      out.softirqs.push_back(SoftirqWindow{.vector = part.vector,
                                           .cpu = cpu_id,
                                           .count = estimate.count,
                                           .time_ns = estimate.time_ns});
    }
    const double share = estimate.time_ns / (seconds * 1e9);
    CpuWindow& cpu = CpuEntry(out, cpu_id);
    AddShare(cpu.bpf_softirq_share, share);
    if (part.vector == procfs::kNetRxSoftirq) AddShare(cpu.bpf_net_rx_share, share);
    if (part.vector == procfs::kNetTxSoftirq) AddShare(cpu.bpf_net_tx_share, share);
  }
  for (const auto& [cpu, total] : per_cpu) {
    CpuEntry(out, static_cast<int>(cpu)).bpf_softirq_source = SoftirqTimeSource(total);
  }
}

}  // namespace nictune::model::internal
