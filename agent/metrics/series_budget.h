// SPDX-License-Identifier: Apache-2.0
// The series budget (docs/metrics.md "Series budget"): how many series nictuned exports at most,
// family by family, from the shape of the host alone. No port, network namespace, socket count
// beyond the top ones, amount of traffic or uptime enters it: drops are series per reason,
// protocol and own device; the devices of every other namespace are one device; per-socket series
// are the top sockets'; per-CPU interrupt series are opt-in. The store keeps the same series.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "agent/metrics/series_options.h"

namespace nictune::metrics {

struct HostShape {
  size_t cpus = 0;          // possible CPUs
  size_t irqs = 0;          // numbered irq lines that have fired (/proc/interrupts)
  size_t devices = 0;       // network devices in the agent's own namespace
  size_t napis = 0;         // NAPI instances that polled: NIC queues in every namespace, backlog
  size_t drop_reasons = 0;  // drop reasons seen; at most the kernel's enum skb_drop_reason
  size_t emulated_nics = 0;
};

// Set sizes the code fixes, not the host.
inline constexpr size_t kSoftirqVectors = 10;     // HI ... RCU
inline constexpr size_t kDropProtocols = 10;      // ProtocolName's values, "" and "other" included
inline constexpr size_t kProbeHooks = 8;          // the probe budget's hooks
inline constexpr size_t kBpfMaps = 6;             // the probes' hash maps, with map pressure
inline constexpr size_t kBpfPrograms = 24;        // handlers of every concern, loaded
inline constexpr size_t kSources = 24;            // procfs, sysfs, netlink and bpf sources
inline constexpr size_t kDeviceKnobs = 5;         // coalescing and deferral, per device or queue
inline constexpr size_t kHostKnobs = 8;           // the net.core and net.ipv4 sysctls tuned
inline constexpr size_t kKnobs = 14;              // every tuner::Knob
inline constexpr size_t kKnobModes = 4;           // idle, guarding, parked, released
inline constexpr size_t kChangeResults = 4;       // applied, kept, rolled_back, failed

struct SeriesBudget {
  std::map<std::string, size_t> per_family;  // by sample name: a histogram's _bucket, _sum, _count
  size_t total = 0;
  // The budget of a sample name; 0 for a name the budget does not know (a new family must be
  // added here before it is exported).
  size_t Of(const std::string& sample_name) const;
};

SeriesBudget BudgetFor(const HostShape& shape, const SeriesOptions& options);

}  // namespace nictune::metrics
