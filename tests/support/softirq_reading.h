// SPDX-License-Identifier: Apache-2.0
// A reading of the probes' softirq counters with /proc/softirqs read just before it, as the
// agent's snapshot takes them (agent/collect/snapshot_collector.cc): the probes may time softirqs
// for short slots only (the probe budget, driver/bpf/probe_duty_cycle.h), and then the counts come from
// /proc/softirqs. For the tests and benches that compare the probes' softirq time with another
// measurement.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "agent/model/softirq_time.h"
#include "agent/procfs/softirqs.h"
#include "driver/probe_source.h"

namespace nictune::testing_support {

struct SoftirqReading {
  procfs::SoftirqTable proc;
  driver::BpfCounters bpf;
};

absl::StatusOr<SoftirqReading> ReadSoftirqs(driver::ProbeSource& probes);

// One vector over every CPU between two readings, as the agent's window estimates it.
model::SoftirqTimeEstimate VectorTime(const SoftirqReading& before, const SoftirqReading& after,
                                      uint32_t vector);

// The vector's /proc/softirqs count over every CPU between two readings.
uint64_t ProcVectorCount(const SoftirqReading& before, const SoftirqReading& after,
                         uint32_t vector);

}  // namespace nictune::testing_support
