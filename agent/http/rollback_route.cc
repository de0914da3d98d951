// SPDX-License-Identifier: Apache-2.0
#include "agent/http/rollback_route.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "agent/http/actuation_json.h"
#include "agent/http/json_body.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

Response ResultResponse(const actuate::ActuationResult& result) {
  const bool done = result.outcome == actuate::Outcome::kRestored ||
                    result.outcome == actuate::Outcome::kRolledBack ||
                    result.outcome == actuate::Outcome::kUnchanged;
  nlohmann::json body{{"result", ActuationResultJson(result)}};
  if (!done) {
    body["error"] = "conflict";
    body["detail"] = result.message;
  }
  return Response{.status = done ? 200 : 409, .body = model::JsonText(body)};
}

Response Rollback(service::TuningControl& tuning, const Request& request) {
  absl::StatusOr<nlohmann::json> body = ParseJsonBody(request);
  if (!body.ok()) return ErrorResponse(400, "bad_request", std::string(body.status().message()));
  if (!body->is_object()) {
    return ErrorResponse(400, "bad_request", "the body must be a JSON object");
  }
  const absl::Time now = absl::Now();
  if (body->contains("change_id")) {
    const nlohmann::json& id = (*body)["change_id"];
    if (body->size() != 1 || !id.is_number_integer() || id.get<int64_t>() <= 0) {
      return ErrorResponse(400, "bad_request",
                           "expected {\"change_id\": N} with N a positive integer, or "
                           "{\"knob\": ..., \"target\": ...}");
    }
    absl::StatusOr<actuate::ActuationResult> result = tuning.RollbackChange(id.get<int64_t>(), now);
    if (!result.ok()) {
      const std::string detail = std::string(result.status().message());
      if (absl::IsNotFound(result.status())) return ErrorResponse(404, "not_found", detail);
      if (absl::IsFailedPrecondition(result.status())) {
        return ErrorResponse(409, "conflict", detail);
      }
      return ErrorResponse(503, "store_unavailable", detail);
    }
    return ResultResponse(*result);
  }
  absl::StatusOr<driver::knobs::KnobAddress> address = KnobAddressFromJson(*body);
  if (!address.ok()) {
    return ErrorResponse(400, "bad_request",
                         absl::StrCat(address.status().message(),
                                      " (expected {\"change_id\": N} or {\"knob\", \"target\"})"));
  }
  return ResultResponse(tuning.RollbackKnob(*address, now));
}

}  // namespace

absl::Status AddRollbackRoute(Router& router, service::TuningControl& tuning) {
  return router.Add("POST", kRollbackPath, Effect::kChanges,
                    [&tuning](const Request& request) { return Rollback(tuning, request); });
}

}  // namespace nictune::http
