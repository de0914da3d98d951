// SPDX-License-Identifier: Apache-2.0
// Which HTTP request each command sends (the REST API, docs/api.md): method, target and body.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/cli/cli_args.h"

namespace nictune::cli {

struct AgentRequest {
  std::string method;
  std::string target;  // path and query, percent-encoded
  std::string body;    // JSON, empty for GET
};

// now resolves history's relative times ("-1h", "now"). InvalidArgument naming the option when a
// time is neither relative nor something the agent parses (RFC 3339, Unix seconds): the agent
// would say so too, but a usage error is clearer and costs no round trip.
absl::StatusOr<AgentRequest> RequestFor(const Command& command, absl::Time now);

// The JSON body of POST /api/v1/whatif for `whatif` (its --device is resolved later, as ring_size).
std::string WhatifRequestBody(const WhatifCommand& whatif);

// "now" -> now, "-1h30m" -> now - 1h30m; an RFC 3339 time or Unix seconds is passed on as given
// once the agent's own parser (http::ParseTimeParameter) accepts it.
absl::StatusOr<std::string> ResolveHistoryTime(absl::string_view option, absl::string_view value,
                                               absl::Time now);

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string PercentEncode(absl::string_view text);

}  // namespace nictune::cli
