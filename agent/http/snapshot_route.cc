// SPDX-License-Identifier: Apache-2.0
#include "agent/http/snapshot_route.h"

#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

absl::Status AddSnapshotRoute(Router& router, const service::ServiceState& state) {
  return router.Add("GET", "/api/v1/snapshot", Effect::kReadsOnly, [&state](const Request&) {
    const auto report = state.LatestReport();
    if (report == nullptr) {
      return ErrorResponse(503, "no_snapshot",
                           "no interval has been measured yet: the first window ends one "
                           "--interval after the agent starts");
    }
    // Serialised outside the state's lock: the shared_ptr keeps this report alive meanwhile.
    return Response{.body = model::JsonText(*report)};
  });
}

}  // namespace nictune::http
