// SPDX-License-Identifier: Apache-2.0
// Socket-buffer policy: rmem_default, rmem_max, udp_rmem_min and SO_RCVBUF advice for named
// application sockets, from the buffers the queues' chosen intervals need.
#pragma once

#include <vector>

#include "tuner/interval_plan.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

struct QueuePlan {
  const QueueObservation* queue = nullptr;
  IntervalPlan plan;
};

// For each socket of each queue: the plan's need at the chosen interval u (what the socket must
// hold there, burst_model.h, over (1 - margin), times truesize; when the interval is held below
// the cost floor for dropping sockets, at the interval the plan takes once buffers grow). Sockets
// on the default buffer raise rmem_default; sockets that set SO_RCVBUF get advice (the kernel
// doubles the value: advise ceil(needed / 2)) and rmem_max must admit it. rmem_max >= rmem_default
// always. Buffers only grow here: a roomy buffer costs memory only when used. udp_rmem_min rises to
// the worst need when UDP memory pressure dropped packets.
std::vector<Recommendation> RecommendRmem(const Observation& obs,
                                          const std::vector<QueuePlan>& plans,
                                          const PolicyConfig& config);

}  // namespace nictune::tuner
