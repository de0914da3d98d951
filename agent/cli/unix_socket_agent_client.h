// SPDX-License-Identifier: Apache-2.0
// AgentClient over the agent's root-only unix socket (agent/http/unix_socket_client.h).
#pragma once

#include <string>

#include "absl/time/time.h"
#include "agent/cli/agent_client.h"

namespace nictune::cli {

class UnixSocketAgentClient : public AgentClient {
 public:
  explicit UnixSocketAgentClient(std::string socket_path,
                                 absl::Duration timeout = absl::Seconds(30))
      : socket_path_(std::move(socket_path)), timeout_(timeout) {}

  absl::StatusOr<http::Response> Call(const std::string& method, const std::string& target,
                                      const std::string& body) override;
  std::string Where() const override;

 private:
  std::string socket_path_;
  absl::Duration timeout_;
};

}  // namespace nictune::cli
