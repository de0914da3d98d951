// SPDX-License-Identifier: Apache-2.0
// Reads a running emulated NIC's counters over its control socket, as the agent reads a real
// NIC's statistics.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "driver/emulated/control_client.h"
#include "driver/emulated/counters.h"

namespace nictune::driver::emulated {

class EmulatedNicCountersReader {
 public:
  explicit EmulatedNicCountersReader(std::string control_socket_path)
      : client_(std::move(control_socket_path)) {}

  absl::StatusOr<EmulatedNicCounters> Read() const;  // the device's: its queues summed
  absl::StatusOr<EmulatedNicCounters> ReadQueue(size_t queue) const;

 private:
  ControlClient client_;
};

}  // namespace nictune::driver::emulated
