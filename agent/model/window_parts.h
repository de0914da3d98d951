// SPDX-License-Identifier: Apache-2.0
// The pieces ComputeWindow assembles, one per kind of source; internal to agent/model.
#pragma once

#include "agent/model/window.h"

namespace nictune::model::internal {

// The entry of one CPU in the window, added on first use: sources report different CPU sets.
CpuWindow& CpuEntry(Window& out, int cpu);

// Adds a time share to a field that may not be set yet.
inline void AddShare(std::optional<double>& field, double share) {
  field = field.value_or(0) + share;
}

// From /proc/stat, /proc/softirqs and /proc/net/softnet_stat.
void AddProcfsCpus(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// From /proc/interrupts.
void AddProcfsIrqs(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// From /sys/class/net/*/statistics.
void AddDevices(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// From /proc/net/snmp and /proc/net/netstat.
void AddProtocols(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// From the emulated NICs' own counters.
void AddEmulatedNics(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// From the threaded NAPI pollers' /proc/PID/schedstat.
void AddNapiPollers(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// Softirq times per vector and CPU from the BPF probes, counted from /proc/softirqs while the
// timing programs were duty-cycled.
void AddSoftirqTimes(const Snapshot& before, const Snapshot& after, double seconds, Window& out);
// The kernel's per-socket counters (sock_diag), merged into the sockets the probes saw; the
// sockets only they list are added when they dropped or filled, with the probes' truesize so far
// when the probes tracked the socket before.
void AddSocketCensus(const Snapshot& before, const Snapshot& after, Window& out);
// From the BPF probes: irq times, NAPI polls, drops, sockets, truesize.
void AddBpf(const driver::BpfCounters& before, const driver::BpfCounters& after, double seconds,
            Window& out);

}  // namespace nictune::model::internal
