// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/unix_socket_agent_client.h"

#include "absl/strings/str_cat.h"
#include "agent/http/unix_socket_client.h"

namespace nictune::cli {

absl::StatusOr<http::Response> UnixSocketAgentClient::Call(const std::string& method,
                                                           const std::string& target,
                                                           const std::string& body) {
  return http::Call(socket_path_, method, target, body, timeout_);
}

std::string UnixSocketAgentClient::Where() const {
  return absl::StrCat("unix socket ", socket_path_);
}

}  // namespace nictune::cli
