// A minimal HTTP/1.1 for the CLI's unix socket (CivetWeb serves TCP only): parsing a request head,
// writing a response, and parsing a response for the client. One request per connection and
// bodies framed by Content-Length only; chunked transfer coding is refused, not parsed.
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

struct RequestHead {
  std::string method;                                        // "GET"
  std::string path;                                          // percent-decoded, starts with '/'
  std::string query;                                         // raw, after '?'
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::optional<size_t> content_length;
  bool has_transfer_encoding = false;
};

// head: the bytes before the blank line that ends it (CRLF line ends; a bare LF is accepted).
// InvalidArgument saying what is wrong: a malformed request line, a version other than HTTP/1.0
// or 1.1, a target that is not an absolute path, a malformed %-escape or a control byte in the
// path, a header line without a name or with folding, more than kMaxHeaderLines headers, or a
// Content-Length that is not one decimal number.
absl::StatusOr<RequestHead> ParseRequestHead(absl::string_view head);

// The first value of header `lower_name`, or nullopt.
std::optional<std::string> HeaderValue(const RequestHead& head, absl::string_view lower_name);

// "Not Found" for 404; "Unknown" for codes it does not know.
absl::string_view ReasonPhrase(int status);

// The whole response with Content-Type, Content-Length, Cache-Control: no-store,
// X-Content-Type-Options: nosniff and Connection: close; no body when include_body is false
// (HEAD). Both servers (CivetWeb's and the unix socket's) write responses with it.
std::string SerializeResponse(const Response& response, bool include_body);

// The request as the client sends it: Host, Content-Length (also for an empty body),
// Connection: close, Content-Type: application/json when there is a body, and extra_headers
// (e.g. Authorization) as given.
std::string SerializeRequest(absl::string_view method, absl::string_view target,
                             absl::string_view body,
                             const std::vector<std::pair<std::string, std::string>>& extra_headers);

// Parses what SerializeResponse writes: status line, headers, and a body of exactly
// Content-Length bytes (or to the end when there is none). Content-Type goes to content_type, the
// other headers to headers.
absl::StatusOr<Response> ParseResponse(absl::string_view text);

}  // namespace nictune::http
