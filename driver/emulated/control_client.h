// SPDX-License-Identifier: Apache-2.0
// Talks to a running emulated NIC over its control socket: one connection per request, so a NIC
// that restarted is reached again without any state here.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "driver/emulated/control_protocol.h"

namespace nictune::driver::emulated {

class ControlClient {
 public:
  explicit ControlClient(std::string socket_path, absl::Duration timeout = absl::Seconds(2))
      : socket_path_(std::move(socket_path)), timeout_(timeout) {}

  // The OK response's value, or the status of an ERR response, or an error naming the socket,
  // the operation and the errno. NotFound when no NIC serves the socket (no file, or nobody
  // listening on it: the NIC exited), as the kernel answers for a device that went away.
  absl::StatusOr<std::string> Call(const ControlRequest& request) const;

  const std::string& socket_path() const { return socket_path_; }

 private:
  std::string socket_path_;
  absl::Duration timeout_;
};

}  // namespace nictune::driver::emulated
