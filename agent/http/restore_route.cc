// SPDX-License-Identifier: Apache-2.0
#include "agent/http/restore_route.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "agent/http/actuation_json.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

absl::Status AddRestoreRoute(Router& router, service::TuningControl& tuning) {
  return router.Add("POST", kRestorePath, Effect::kChanges, [&tuning](const Request& request) {
    const actuate::RestoreReport report = tuning.RestoreAll(absl::Now());
    if (!report.error.ok()) {
      return ErrorResponse(
          503, "store_unavailable",
          absl::StrCat(request.method, " ", request.path, ": ", report.error.message()));
    }
    return Response{.status = report.failed.empty() ? 200 : 500,
                    .body = model::JsonText(RestoreReportJson(report))};
  });
}

}  // namespace nictune::http
