// SPDX-License-Identifier: Apache-2.0
// An HTTP exchange as the router and its handlers see it, independent of the server library.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nictune::http {

// How the request arrived: the token rule for mutating requests depends on it.
enum class Transport { kTcp, kUnixSocket };

struct Request {
  std::string method;         // "GET", "POST", ...
  std::string path;           // decoded path without the query, e.g. "/api/v1/status"
  std::string query;          // raw query string after '?', still percent-encoded
  std::string authorization;  // the Authorization header, "" when absent
  std::string body;
  Transport transport = Transport::kTcp;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Allow
};

// {"error": error, "detail": detail} with the given status. error is a short stable word
// ("not_found"), detail the sentence a person reads.
Response ErrorResponse(int status, const std::string& error, const std::string& detail);

}  // namespace nictune::http
