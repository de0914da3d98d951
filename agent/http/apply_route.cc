// SPDX-License-Identifier: Apache-2.0
#include "agent/http/apply_route.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/http/actuation_json.h"
#include "agent/http/json_body.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

Response Apply(service::TuningControl& tuning, const Request& request) {
  std::optional<driver::knobs::KnobAddress> only;
  // An empty body (or {}) applies every recommendation; {"knob", "target"} only that one.
  if (!request.body.empty()) {
    absl::StatusOr<nlohmann::json> body = ParseJsonBody(request);
    if (!body.ok()) return ErrorResponse(400, "bad_request", std::string(body.status().message()));
    if (!body->is_object()) {
      return ErrorResponse(400, "bad_request", "the body must be a JSON object");
    }
    if (!body->empty()) {
      absl::StatusOr<driver::knobs::KnobAddress> address = KnobAddressFromJson(*body);
      if (!address.ok()) {
        return ErrorResponse(400, "bad_request", std::string(address.status().message()));
      }
      only = *address;
    }
  }
  absl::StatusOr<actuate::ControlStepSummary> step = tuning.ApplyNow(only, absl::Now());
  if (!step.ok()) {
    const std::string detail = std::string(step.status().message());
    if (absl::IsNotFound(step.status())) return ErrorResponse(404, "not_found", detail);
    if (absl::IsFailedPrecondition(step.status())) return ErrorResponse(409, "conflict", detail);
    return ErrorResponse(500, "internal", detail);
  }
  return Response{.body = model::JsonText(nlohmann::json{{"step", ControlStepJson(*step)}})};
}

}  // namespace

absl::Status AddApplyRoute(Router& router, service::TuningControl& tuning) {
  return router.Add("POST", kApplyPath, Effect::kChanges,
                    [&tuning](const Request& request) { return Apply(tuning, request); });
}

}  // namespace nictune::http
