// SPDX-License-Identifier: Apache-2.0
// Sums over the probes' counters that the accuracy tests compare with the kernel's own counters.
// Header-only: each privileged test is its own binary and links no shared test code for this.
#pragma once

#include <netinet/in.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "driver/probe_source.h"

namespace nictune::bpf_tests {

struct NapiTotals {
  uint64_t polls = 0;
  uint64_t work = 0;
  uint64_t budget_exhausted = 0;
  std::vector<uint64_t> work_histogram;  // polls by work done
};

inline NapiTotals NapiTotalsFor(const driver::BpfCounters& counters, const std::string& device) {
  NapiTotals totals;
  for (const driver::NapiCounter& napi : counters.napis) {
    if (napi.device != device) continue;
    totals.polls += napi.polls;
    totals.work += napi.work;
    totals.budget_exhausted += napi.budget_exhausted;
    totals.work_histogram.resize(
        std::max(totals.work_histogram.size(), napi.work_histogram.size()));
    for (size_t b = 0; b < napi.work_histogram.size(); ++b) {
      totals.work_histogram[b] += napi.work_histogram[b];
    }
  }
  return totals;
}

// One hook's duty in `counters`; an empty one (mode "") where the hook is absent.
inline driver::HookDuty DutyOf(const driver::BpfCounters& counters, const std::string& hook) {
  for (const driver::HookDuty& duty : counters.hooks) {
    if (duty.hook == hook) return duty;
  }
  return driver::HookDuty{};
}

// UDP drops with `reason_name` attributed to one socket: by its cookie where the probe knew the
// socket, else by the local port.
inline uint64_t UdpDropsFor(const driver::BpfCounters& counters, const std::string& reason_name,
                            uint64_t socket_cookie, uint16_t port) {
  uint64_t total = 0;
  for (const driver::DropCounter& drop : counters.drops) {
    if (drop.reason_name != reason_name || drop.l4_protocol != IPPROTO_UDP) continue;
    const bool ours =
        drop.socket_cookie != 0 ? drop.socket_cookie == socket_cookie : drop.local_port == port;
    if (ours) total += drop.count;
  }
  return total;
}

struct IrqTotals {
  uint64_t count = 0;
  uint64_t time_ns = 0;
};

inline IrqTotals IrqTotalsFor(const driver::BpfCounters& counters, uint32_t irq) {
  IrqTotals totals;
  for (const driver::IrqCpuCounter& counter : counters.irqs) {
    if (counter.irq != irq) continue;
    totals.count += counter.count;
    totals.time_ns += counter.time_ns;
  }
  return totals;
}

inline uint64_t SoftirqTimeFor(const driver::BpfCounters& counters, uint32_t vector) {
  uint64_t time_ns = 0;
  for (const driver::SoftirqCpuCounter& counter : counters.softirqs) {
    if (counter.vector == vector) time_ns += counter.time_ns;
  }
  return time_ns;
}

inline const driver::SocketFill* SocketFillFor(const driver::BpfCounters& counters,
                                               uint64_t socket_cookie) {
  for (const driver::SocketFill& fill : counters.sockets) {
    if (fill.key.cookie == socket_cookie) return &fill;
  }
  return nullptr;
}

}  // namespace nictune::bpf_tests
