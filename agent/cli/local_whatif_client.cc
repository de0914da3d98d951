// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/local_whatif_client.h"

#include "agent/http/whatif_route.h"

namespace nictune::cli {

LocalWhatifClient::LocalWhatifClient() {
  added_ = http::AddWhatifRoute(router_);
}

absl::StatusOr<http::Response> LocalWhatifClient::Call(const std::string& method,
                                                       const std::string& target,
                                                       const std::string& body) {
  if (!added_.ok()) return added_;
  return router_.Dispatch({.method = method, .path = target, .body = body});
}

}  // namespace nictune::cli
