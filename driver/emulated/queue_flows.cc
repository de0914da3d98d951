// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/queue_flows.h"

#include "absl/strings/str_cat.h"

namespace nictune::driver::emulated {

absl::StatusOr<std::vector<std::vector<size_t>>> AssignFlowsToQueues(
    const std::vector<FlowSpec>& flows, size_t queues) {
  if (queues < 1 || queues > kMaxQueues) {
    return absl::InvalidArgumentError(
        absl::StrCat("queues ", queues, " is outside 1..", kMaxQueues));
  }
  std::vector<std::vector<size_t>> assigned(queues);
  for (size_t flow = 0; flow < flows.size(); ++flow) {
    const int64_t queue = flows[flow].queue;
    if (queue >= static_cast<int64_t>(queues)) {
      return absl::InvalidArgumentError(absl::StrCat("flow ", flow, " to port ", flows[flow].port,
                                                     ": queue ", queue, " but the NIC has ", queues,
                                                     " queues"));
    }
    const size_t target = queue == kQueueByFlowIndex ? flow % queues : static_cast<size_t>(queue);
    assigned[target].push_back(flow);
  }
  return assigned;
}

}  // namespace nictune::driver::emulated
