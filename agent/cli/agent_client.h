// SPDX-License-Identifier: Apache-2.0
// How the CLI reaches the agent: one HTTP exchange per call, over the unix socket or TCP. Commands
// take this interface so that tests can answer with recorded responses.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/http/request.h"

namespace nictune::cli {

class AgentClient {
 public:
  virtual ~AgentClient() = default;

  // The response whatever its status; an error only when no response arrived (the message names
  // the socket or URL, the operation and the errno).
  virtual absl::StatusOr<http::Response> Call(const std::string& method, const std::string& target,
                                              const std::string& body) = 0;

  // "unix socket /run/nictune/nictune.sock" or "http://127.0.0.1:9877", for messages.
  virtual std::string Where() const = 0;
};

}  // namespace nictune::cli
