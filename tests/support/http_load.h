// SPDX-License-Identifier: Apache-2.0
// Many concurrent HTTP clients against a server on 127.0.0.1, driven by one epoll loop: each
// client connects, sends one GET with "Connection: close", reads the reply to EOF and connects
// again, cycling through the targets, until the load's duration is over. Every reply is checked
// (status line, Content-Length against the body) and every failure kept with its reason, a clean
// refusal apart from a broken reply, so a test can insist on none and a benchmark can print the
// latencies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

struct HttpLoadOptions {
  uint16_t port = 0;
  std::vector<std::string> targets;  // client i starts at targets[i % size] and then cycles
  int clients = 200;                 // connections open at once
  absl::Duration duration = absl::Seconds(10);         // no request starts after this
  absl::Duration request_timeout = absl::Seconds(10);  // connect to EOF; longer is a failure
};

struct TargetLoad {
  std::string target;
  uint64_t answered = 0;                  // replies with status 200 and a complete body
  std::vector<absl::Duration> latencies;  // of those replies, connect() to EOF
  // Requests the server turned away cleanly, before sending any byte of a reply (connection
  // refused or reset, closed unanswered) or with a whole 503: reason -> n.
  std::map<std::string, uint64_t> refused;
  // Everything else that is not a complete 200: a truncated or malformed reply, another status,
  // a request that timed out: reason -> n.
  std::map<std::string, uint64_t> failures;
};

struct HttpLoadResult {
  absl::Duration elapsed;           // from the first connect to the last reply
  std::vector<TargetLoad> targets;  // in HttpLoadOptions.targets order
};

// Fails only when the load itself cannot run (epoll, no targets); a server's failures are in
// the result.
absl::StatusOr<HttpLoadResult> RunHttpLoad(const HttpLoadOptions& options);

struct LatencySummary {
  absl::Duration p50;
  absl::Duration p99;
  absl::Duration max;
};

// Nearest-rank percentiles; all zero for no latencies.
LatencySummary SummarizeLatencies(std::vector<absl::Duration> latencies);

}  // namespace nictune::testing_support
