// SPDX-License-Identifier: Apache-2.0
// The what-if without an agent: `nictune whatif` is the tuner's arithmetic and the simulator on
// numbers a person gives, so the CLI answers it in process through the agent's own route
// (agent/http/whatif_route.h), with the same JSON and the same errors. Only --device, which needs
// the device's ring as the agent reads it, goes to the agent.
#pragma once

#include <string>

#include "agent/cli/agent_client.h"
#include "agent/http/router.h"

namespace nictune::cli {

class LocalWhatifClient : public AgentClient {
 public:
  LocalWhatifClient();

  absl::StatusOr<http::Response> Call(const std::string& method, const std::string& target,
                                      const std::string& body) override;
  std::string Where() const override { return "the CLI's own tuner"; }

 private:
  http::Router router_;
  absl::Status added_;  // of the route: its own tests keep it ok
};

}  // namespace nictune::cli
