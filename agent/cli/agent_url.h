// SPDX-License-Identifier: Apache-2.0
// The --url the CLI talks to over TCP: http://HOST:PORT with an optional trailing '/'. HTTPS is not
// spoken (the agent listens on loopback by default; put a TLS proxy in front for anything else).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::cli {

struct AgentUrl {
  std::string host;  // "127.0.0.1", "localhost", "::1" (brackets removed)
  std::string port;  // "9877"
};

// InvalidArgument naming the URL for another scheme, a missing port, a path, query or userinfo.
absl::StatusOr<AgentUrl> ParseAgentUrl(absl::string_view url);

}  // namespace nictune::cli
