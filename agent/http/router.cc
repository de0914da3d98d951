// SPDX-License-Identifier: Apache-2.0
#include "agent/http/router.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

absl::Status Router::Add(const std::string& method, const std::string& path, Effect effect,
                         Handler handler) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("route ", method, " \"", path, "\": path must start with '/'"));
  }
  if (!routes_[path].emplace(method, Route{effect, std::move(handler)}).second) {
    return absl::AlreadyExistsError(absl::StrCat("route ", method, " ", path, ": already added"));
  }
  return absl::OkStatus();
}

Effect Router::EffectOf(const Request& request) const {
  const auto path = routes_.find(request.path);
  if (path == routes_.end()) return Effect::kReadsOnly;
  const auto route = path->second.find(request.method);
  return route == path->second.end() ? Effect::kReadsOnly : route->second.effect;
}

Response Router::Dispatch(const Request& request) const {
  const auto path = routes_.find(request.path);
  if (path == routes_.end()) {
    return ErrorResponse(404, "not_found", absl::StrCat("no resource at ", request.path));
  }
  const auto route = path->second.find(request.method);
  if (route == path->second.end()) {
    std::vector<std::string> allowed;
    for (const auto& [method, unused] : path->second) allowed.push_back(method);
    Response r = ErrorResponse(405, "method_not_allowed",
                               absl::StrCat(request.method, " is not allowed on ", request.path,
                                            "; allowed: ", absl::StrJoin(allowed, ", ")));
    r.headers.emplace_back("Allow", absl::StrJoin(allowed, ", "));
    return r;
  }
  // Library boundary: handlers use nlohmann::json and the standard library, which throw. The
  // detail names what failed, not the request: the client printing it names that already.
  try {
    return route->second.handler(request);
  } catch (const nlohmann::json::exception& e) {
    // Only a body is the client's JSON; without one the fault is the agent's own.
    if (request.body.empty()) return ErrorResponse(500, "internal", e.what());
    return ErrorResponse(400, "bad_request", absl::StrCat("the request body: ", e.what()));
  } catch (const std::exception& e) {
    return ErrorResponse(500, "internal", e.what());
  } catch (...) {
    return ErrorResponse(500, "internal", "unknown exception");
  }
}

}  // namespace nictune::http
