// Routes requests by method and exact path to handlers. Unknown paths get 404, known paths with
// another method 405 (with Allow), and nothing a handler throws crosses this boundary: JSON
// type errors (a body of the wrong shape) become 400, anything else 500.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "agent/http/request.h"

namespace nictune::http {

using Handler = std::function<Response(const Request&)>;

class Router {
 public:
  // Fails when the route exists already or the path does not start with '/'.
  absl::Status Add(const std::string& method, const std::string& path, Handler handler);

  Response Dispatch(const Request& request) const;

 private:
  std::map<std::string, std::map<std::string, Handler>> routes_;  // path -> method -> handler
};

}  // namespace nictune::http
