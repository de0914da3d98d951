// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/queue_groups.h"

#include <algorithm>
#include <set>

namespace nictune::observe {
namespace {

template <typename T>
void AddUnique(std::vector<T>& to, const T& value) {
  if (std::find(to.begin(), to.end(), value) == to.end()) to.push_back(value);
}

QueueGroup GroupOf(const collect::QueueBinding& b, int queue) {
  QueueGroup g{.device = b.device, .queue = queue, .cpus = b.cpus};
  if (b.irq) g.irqs.push_back(*b.irq);
  if (b.napi_id) g.napi_ids.push_back(*b.napi_id);
  return g;
}

bool EachHasItsOwnNapi(const std::vector<const collect::QueueBinding*>& rx) {
  std::set<uint32_t> seen;
  for (const collect::QueueBinding* b : rx) {
    if (!b->napi_id || !seen.insert(*b->napi_id).second) return false;
  }
  return true;
}

}  // namespace

std::vector<QueueGroup> GroupQueues(const std::vector<collect::QueueBinding>& bindings,
                                    const std::string& device, bool per_queue_napi_counts) {
  std::vector<const collect::QueueBinding*> rx;
  for (const collect::QueueBinding& b : bindings) {
    if (b.device == device && b.kind != collect::QueueKind::kTx) rx.push_back(&b);
  }
  if (rx.size() == 1) return {GroupOf(*rx.front(), rx.front()->queue)};
  if (rx.size() > 1 && per_queue_napi_counts && EachHasItsOwnNapi(rx)) {
    std::vector<QueueGroup> groups;
    for (const collect::QueueBinding* b : rx) groups.push_back(GroupOf(*b, b->queue));
    return groups;
  }
  QueueGroup whole{.device = device,
                   .rx_queues = static_cast<uint32_t>(std::max<size_t>(1, rx.size()))};
  for (const collect::QueueBinding* b : rx) {
    if (b->irq) AddUnique(whole.irqs, *b->irq);
    if (b->napi_id) AddUnique(whole.napi_ids, *b->napi_id);
    for (int cpu : b->cpus) AddUnique(whole.cpus, cpu);
  }
  // A NAPI instance the map names for some queues but not all would hide the others' polls.
  if (whole.napi_ids.size() != rx.size()) {
    whole.napi_ids.clear();
    for (const collect::QueueBinding& b : bindings) {
      if (b.device != device || b.kind != collect::QueueKind::kTx || !b.napi_id) continue;
      const bool also_rx = std::any_of(rx.begin(), rx.end(), [&](const collect::QueueBinding* r) {
        return r->napi_id == b.napi_id;
      });
      if (!also_rx) AddUnique(whole.tx_only_napi_ids, *b.napi_id);
    }
  }
  std::sort(whole.cpus.begin(), whole.cpus.end());
  return {whole};
}

}  // namespace nictune::observe
