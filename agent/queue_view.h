// SPDX-License-Identifier: Apache-2.0
// The per-queue view the mission asks for: each NIC queue with its interrupt rate, its NAPI
// instance's poll figures and the CPUs that serve it, joined from the Window and the queue map.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/collect/queue_map.h"
#include "agent/model/window.h"

namespace nictune::agent {

struct QueueWindow {
  collect::QueueBinding binding;
  // Of the queue's irq (procfs, or bpf without procfs), or the device's own per-queue count.
  std::optional<double> interrupts_per_s;
  std::optional<double> irq_handler_time_share;  // bpf
  // From the queue's NAPI instance (bpf napi_poll); several queues can share one instance.
  std::optional<double> polls_per_s;
  std::optional<double> packets_per_poll;
  std::optional<double> budget_exhausted_fraction;
  std::optional<double> rx_share;
  // Mean softirq and hardirq share over the CPUs the irq is delivered to (procfs /proc/stat).
  std::optional<double> cpu_softirq_share;
  std::optional<double> cpu_hardirq_share;
  // Threaded NAPI: the share of a CPU the queue's poller thread ran (/proc/PID/schedstat), whose
  // polls the softirq share does not hold.
  std::optional<double> napi_poller_share;
};

// One row per binding, then one per queue that only its device's own counters name (a TAP's
// queues have neither an irq nor a napi id for the map to find them by).
std::vector<QueueWindow> BuildQueueWindows(const model::Window& window,
                                           const std::vector<collect::QueueBinding>& bindings);

}  // namespace nictune::agent
