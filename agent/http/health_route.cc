// SPDX-License-Identifier: Apache-2.0
#include "agent/http/health_route.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

Health HealthOf(const service::ServiceStatus& status, absl::Time now) {
  const absl::Duration stale_after =
      std::max(kStaleAfterIntervals * status.config.interval, kMinStaleAfter);
  const std::optional<absl::Time>& last = status.sampling.last_sample;
  if (!last) {
    const absl::Duration up = now - status.config.started;
    if (up <= status.config.interval + kStartupGrace) {
      return {.ok = true,
              .state = "starting",
              .detail = absl::StrCat("no sample yet, ", absl::FormatDuration(up), " after start")};
    }
    return {.ok = false,
            .state = "stale",
            .detail = absl::StrCat("no sample in the ", absl::FormatDuration(up), " since start")};
  }
  const absl::Duration age = now - *last;
  if (age > stale_after) {
    return {.ok = false,
            .state = "stale",
            .detail = absl::StrCat("the latest sample is ", absl::FormatDuration(age),
                                   " old, more than ", absl::FormatDuration(stale_after))};
  }
  return {.ok = true,
          .state = "ok",
          .detail = absl::StrCat("the latest sample is ", absl::FormatDuration(age), " old")};
}

absl::Status AddHealthRoute(Router& router, const service::ServiceState& state,
                            std::function<absl::Time()> now) {
  return router.Add("GET", "/healthz", Effect::kReadsOnly,
                    [&state, now = std::move(now)](const Request&) {
                      const Health health = HealthOf(state.Status(), now());
                      return Response{
                          .status = health.ok ? 200 : 503,
                          .body = model::JsonText(nlohmann::json{{"status", health.state},
                                                                 {"detail", health.detail}})};
                    });
}

}  // namespace nictune::http
