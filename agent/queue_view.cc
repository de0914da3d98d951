// SPDX-License-Identifier: Apache-2.0
#include "agent/queue_view.h"

#include <algorithm>

namespace nictune::agent {
namespace {

const model::NapiWindow* FindNapi(const model::Window& w, const collect::QueueBinding& b) {
  if (b.napi_id) {
    for (const auto& n : w.napis) {
      if (n.napi_id == *b.napi_id) return &n;
    }
    return nullptr;
  }
  if (b.napi_thread) {
    for (const auto& n : w.napis) {
      if (n.napi_id == 0 && n.thread_pid == *b.napi_thread) return &n;
    }
    return nullptr;
  }
  // Without a napi id, a device's only NAPI instance is the queue's; with several we cannot tell.
  const model::NapiWindow* only = nullptr;
  for (const auto& n : w.napis) {
    if (n.ifindex != b.ifindex) continue;
    if (only != nullptr) return nullptr;
    only = &n;
  }
  return only;
}

void AddNapiFigures(const model::Window& window, QueueWindow& q) {
  if (const model::NapiWindow* n = FindNapi(window, q.binding)) {
    q.polls_per_s = n->polls_per_s;
    q.packets_per_poll = n->packets_per_poll;
    q.budget_exhausted_fraction = n->budget_exhausted_fraction;
    q.rx_share = n->rx_share;
  }
  if (!q.binding.napi_thread) return;
  for (const model::NapiPollerWindow& p : window.napi_pollers) {
    if (p.poller.pid == *q.binding.napi_thread && p.poller.device == q.binding.device) {
      q.napi_poller_share = p.cpu_share;
    }
  }
}

// Queues the map has no row for but whose device counts them itself: the rows its per-queue
// counters give, with their interrupt rates and the NAPI figures of their poller threads.
void AddCountedQueues(const model::Window& window,
                      const std::vector<collect::QueueBinding>& bindings,
                      std::vector<QueueWindow>& out) {
  for (const model::EmulatedNicWindow& nic : window.emulated_nics) {
    const bool mapped = std::any_of(bindings.begin(), bindings.end(),
                                    [&](const auto& b) { return b.device == nic.device; });
    if (mapped) continue;
    for (const model::NicQueueWindow& counted : nic.queues) {
      QueueWindow q{.binding = {.device = nic.device,
                                .queue = static_cast<int>(counted.queue),
                                .kind = collect::QueueKind::kRx,
                                .source = collect::kSourceNicCounters}};
      if (counted.napi_thread != 0) q.binding.napi_thread = counted.napi_thread;
      q.interrupts_per_s = counted.interrupts_per_s;
      AddNapiFigures(window, q);
      out.push_back(std::move(q));
    }
  }
}

}  // namespace

std::vector<QueueWindow> BuildQueueWindows(const model::Window& window,
                                           const std::vector<collect::QueueBinding>& bindings) {
  std::vector<QueueWindow> out;
  out.reserve(bindings.size());
  for (const auto& b : bindings) {
    QueueWindow q{.binding = b};
    if (b.irq) {
      const auto irq = std::find_if(window.irqs.begin(), window.irqs.end(),
                                    [&](const model::IrqWindow& i) { return i.irq == *b.irq; });
      // An irq that did not fire in the window is absent from it: its rate is zero, not unknown.
      q.interrupts_per_s = irq == window.irqs.end() ? 0.0 : irq->per_s;
      if (irq != window.irqs.end()) q.irq_handler_time_share = irq->handler_time_share;
    }
    AddNapiFigures(window, q);
    double softirq = 0, hardirq = 0;
    int cpus = 0;
    for (int cpu : b.cpus) {
      for (const auto& c : window.cpus) {
        if (c.cpu != cpu || !c.split) continue;
        softirq += c.split->softirq;
        hardirq += c.split->hardirq;
        ++cpus;
      }
    }
    if (cpus > 0) {
      q.cpu_softirq_share = softirq / cpus;
      q.cpu_hardirq_share = hardirq / cpus;
    }
    out.push_back(std::move(q));
  }
  AddCountedQueues(window, bindings, out);
  return out;
}

}  // namespace nictune::agent
