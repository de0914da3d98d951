// SPDX-License-Identifier: Apache-2.0
// Routes requests by method and exact path to handlers. Unknown paths get 404, known paths with
// another method 405 (with Allow), and nothing a handler throws crosses this boundary: JSON
// errors become 400 when the request has a body (a body of the wrong shape), anything else 500.
// Each route says whether it changes state, so that the token rule (bearer_token.h) follows the
// route table.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "agent/http/request.h"

namespace nictune::http {

using Handler = std::function<Response(const Request&)>;

// What a route does to the host: kChanges routes need the API token over TCP.
enum class Effect { kReadsOnly, kChanges };

class Router {
 public:
  // Fails when the route exists already or the path does not start with '/'.
  absl::Status Add(const std::string& method, const std::string& path, Effect effect,
                   Handler handler);

  // The effect of the route that would serve `request`; kReadsOnly when none would (404, 405
  // answer without running a handler).
  Effect EffectOf(const Request& request) const;

  Response Dispatch(const Request& request) const;

 private:
  struct Route {
    Effect effect;
    Handler handler;
  };
  std::map<std::string, std::map<std::string, Route>> routes_;  // path -> method -> route
};

}  // namespace nictune::http
