// SPDX-License-Identifier: Apache-2.0
// The CLI's side of HTTP/1.1 (the agent's server is libmicrohttpd, server.h): writing a request
// and parsing the response, one request per connection, bodies framed by Content-Length or by the
// end of the connection. SerializeResponse writes the form ParseResponse reads, so that the
// parser can be checked against it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/http/request.h"

namespace nictune::http {

inline constexpr size_t kMaxHeaderLines = 64;
// Header lines every written response carries before its extra headers.
inline constexpr size_t kResponseFramingHeaderLines = 5;

// "Not Found" for 404; "Unknown" for codes it does not know.
absl::string_view ReasonPhrase(int status);

// The whole response with Content-Type, Content-Length, Cache-Control: no-store,
// X-Content-Type-Options: nosniff and Connection: close; no body when include_body is false
// (HEAD).
std::string SerializeResponse(const Response& response, bool include_body);

// The request as the client sends it: Host, Content-Length (also for an empty body),
// Connection: close, Content-Type: application/json when there is a body, and extra_headers
// (e.g. Authorization) as given.
std::string SerializeRequest(absl::string_view method, absl::string_view target,
                             absl::string_view body,
                             const std::vector<std::pair<std::string, std::string>>& extra_headers);

// Parses what SerializeResponse writes: status line, headers, and a body of exactly
// Content-Length bytes (or to the end when there is none; two lengths that disagree are an error).
// Content-Type goes to content_type; the other headers, apart from those SerializeResponse always
// writes, go to headers with lower-case names, so a parsed response written again reads back the
// same.
absl::StatusOr<Response> ParseResponse(absl::string_view text);

}  // namespace nictune::http
