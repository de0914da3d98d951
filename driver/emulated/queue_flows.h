// SPDX-License-Identifier: Apache-2.0
// Which of the emulated NIC's flows arrive on which receive queue: a flow's own `queue=`, else its
// index modulo the queues, as RSS spreads flows by their hash.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/emulated/flow_spec.h"

namespace nictune::driver::emulated {

// Per queue, the indices (into `flows`) of its flows, in order. InvalidArgument when `queues` is
// outside 1..kMaxQueues or a flow names a queue the NIC does not have.
absl::StatusOr<std::vector<std::vector<size_t>>> AssignFlowsToQueues(
    const std::vector<FlowSpec>& flows, size_t queues);

}  // namespace nictune::driver::emulated
