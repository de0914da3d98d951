// SPDX-License-Identifier: Apache-2.0
// Which threaded NAPI pollers the snapshots read: the kernel threads that poll a device's NAPI
// instances when its sysfs `threaded` is on, whose polls /proc/stat counts as system time, not
// softirq. Their pids come from netdev netlink's napi-get (Linux 6.8+) through the queue map
// (its bindings, and the instances no queue is linked to: veth's), from an emulated NIC's own
// counters for its TAP's queues, and, for every other namespace's, from their kernel threads'
// names.
#pragma once

#include <vector>

#include "agent/collect/queue_map.h"
#include "agent/model/snapshot.h"

namespace nictune::agent {

// One poller per pid, with the rx queue it polls where a binding or the NIC says (an rx or
// combined queue's before a tx queue's; -1 for an instance no queue is linked to), sorted by pid.
std::vector<model::NapiPoller> NapiPollersOf(
    const collect::QueueMap& map, const std::vector<model::EmulatedNicReading>& emulated_nics);

}  // namespace nictune::agent
