// SPDX-License-Identifier: Apache-2.0
#include "agent/napi_pollers.h"

#include <map>

namespace nictune::agent {

std::vector<model::NapiPoller> NapiPollersOf(
    const collect::QueueMap& map, const std::vector<model::EmulatedNicReading>& emulated_nics) {
  std::map<uint32_t, model::NapiPoller> by_pid;
  for (const collect::QueueBinding& b : map.bindings) {
    if (!b.napi_thread || *b.napi_thread == 0) continue;
    const bool receives = b.kind != collect::QueueKind::kTx;
    auto [it, added] =
        by_pid.try_emplace(*b.napi_thread, model::NapiPoller{.pid = *b.napi_thread,
                                                             .device = b.device,
                                                             .queue = receives ? b.queue : -1,
                                                             .napi_id = b.napi_id});
    if (!added && receives && it->second.queue < 0) it->second.queue = b.queue;
  }
  for (const collect::NapiThread& t : map.napi_threads) {
    by_pid.try_emplace(
        t.pid,
        model::NapiPoller{.pid = t.pid, .device = t.device, .queue = -1, .napi_id = t.napi_id});
  }
  for (const model::EmulatedNicReading& nic : emulated_nics) {
    for (size_t queue = 0; queue < nic.queues.size(); ++queue) {
      const int64_t pid = nic.queues[queue].napi_thread;
      if (pid <= 0 || pid > static_cast<int64_t>(UINT32_MAX)) continue;
      by_pid.try_emplace(static_cast<uint32_t>(pid),
                         model::NapiPoller{.pid = static_cast<uint32_t>(pid),
                                           .device = nic.device,
                                           .queue = static_cast<int>(queue)});
    }
  }
  for (const uint32_t pid : map.other_napi_threads) {
    by_pid.try_emplace(pid, model::NapiPoller{.pid = pid, .other_namespace = true});
  }
  std::vector<model::NapiPoller> out;
  out.reserve(by_pid.size());
  for (auto& [pid, poller] : by_pid) out.push_back(std::move(poller));
  return out;
}

}  // namespace nictune::agent
