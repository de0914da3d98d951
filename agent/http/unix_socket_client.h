// SPDX-License-Identifier: Apache-2.0
// The CLI's side of the agent's unix socket (listener.h): one request, one response.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/http/request.h"

namespace nictune::http {

// Sends `method target` with `body` (Content-Length framed) and returns the response, whatever
// its status. Fails naming the socket and the errno when it cannot connect, send or read, or
// when the whole exchange takes longer than timeout (socket_exchange.h).
absl::StatusOr<Response> Call(const std::string& socket_path, const std::string& method,
                              const std::string& target, const std::string& body,
                              absl::Duration timeout = absl::Seconds(30));

}  // namespace nictune::http
