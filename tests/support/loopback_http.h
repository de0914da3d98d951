// SPDX-License-Identifier: Apache-2.0
// A minimal HTTP/1.0 client for servers a test runs on 127.0.0.1 (nictuned, Prometheus):
// HTTP/1.0 so that the server closes the connection after an unchunked body.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET http://127.0.0.1:<port><target>; fails on a connection or read error or an unparsable
// reply, not on a non-2xx status.
absl::StatusOr<HttpReply> HttpGetLoopback(uint16_t port, const std::string& target,
                                          absl::Duration timeout);

struct HttpRequestSpec {
  std::string method = "GET";
  std::string target;
  std::string authorization;  // the Authorization header's value; empty: none
  std::string body;           // sent with Content-Length for every method but GET
};

// As HttpGetLoopback, for any method, with an optional Authorization header and a body.
absl::StatusOr<HttpReply> HttpRequestLoopback(uint16_t port, const HttpRequestSpec& spec,
                                              absl::Duration timeout);

// Percent-encodes everything but RFC 3986's unreserved characters, for query parameters.
std::string UrlEncode(absl::string_view text);

}  // namespace nictune::testing_support
