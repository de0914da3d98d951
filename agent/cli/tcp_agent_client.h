// SPDX-License-Identifier: Apache-2.0
// AgentClient over TCP (--url), with the bearer token from --token_file on every request (the
// agent requires it for mutating requests over TCP and ignores it on reads).
#pragma once

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "agent/cli/agent_client.h"
#include "agent/cli/agent_url.h"

namespace nictune::cli {

class TcpAgentClient : public AgentClient {
 public:
  TcpAgentClient(std::string url, AgentUrl address, std::optional<std::string> token,
                 absl::Duration timeout = absl::Seconds(30))
      : url_(std::move(url)),
        address_(std::move(address)),
        token_(std::move(token)),
        timeout_(timeout) {}

  absl::StatusOr<http::Response> Call(const std::string& method, const std::string& target,
                                      const std::string& body) override;
  std::string Where() const override { return url_; }

 private:
  std::string url_;
  AgentUrl address_;
  std::optional<std::string> token_;
  absl::Duration timeout_;
};

}  // namespace nictune::cli
