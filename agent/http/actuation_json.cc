// SPDX-License-Identifier: Apache-2.0
#include "agent/http/actuation_json.h"

#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "agent/actuate/knob_key.h"
#include "tuner/knob.h"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

Json OptionalJson(const std::optional<int64_t>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json ResultsJson(const std::vector<actuate::ActuationResult>& results) {
  Json out = Json::array();
  for (const actuate::ActuationResult& result : results) out.push_back(ActuationResultJson(result));
  return out;
}

std::string ActionName(const tuner::Action& action) {
  if (std::holds_alternative<tuner::Apply>(action)) return "apply";
  if (std::holds_alternative<tuner::Rollback>(action)) return "rollback";
  return "release";
}

}  // namespace

Json ActuationResultJson(const actuate::ActuationResult& result) {
  return Json{{"knob", std::string(tuner::KnobName(result.address.knob))},
              {"target", result.address.target},
              {"outcome", std::string(actuate::OutcomeName(result.outcome))},
              {"before", OptionalJson(result.before)},
              {"after", OptionalJson(result.after)},
              {"change_id", result.change_id == 0 ? Json(nullptr) : Json(result.change_id)},
              {"message", result.message},
              {"error", result.error.ok() ? Json(nullptr) : Json(result.error.ToString())}};
}

Json HeldJson(const tuner::Held& held) {
  return Json{{"knob", std::string(tuner::KnobName(held.knob))},
              {"target", held.target},
              {"recommended", held.recommended},
              {"cause", tuner::HeldForName(held.why)},
              {"reason", held.reason}};
}

Json ControlStepJson(const actuate::ControlStepSummary& summary) {
  Json readings = Json::array();
  for (const tuner::KnobReading& reading : summary.readings) {
    readings.push_back(Json{{"knob", std::string(tuner::KnobName(reading.knob))},
                            {"target", reading.target},
                            {"value", reading.value}});
  }
  Json unreadable = Json::array();
  for (const actuate::UnreadableKnob& knob : summary.unreadable) {
    unreadable.push_back(Json{{"knob", std::string(tuner::KnobName(knob.address.knob))},
                              {"target", knob.address.target},
                              {"error", knob.status.ToString()}});
  }
  Json actions = Json::array();
  for (size_t i = 0; i < summary.actions.size(); ++i) {
    Json entry = i < summary.results.size() ? ActuationResultJson(summary.results[i]) : Json{};
    entry["action"] = ActionName(summary.actions[i]);
    entry["reason"] = std::visit([](const auto& a) { return a.reason; }, summary.actions[i]);
    actions.push_back(std::move(entry));
  }
  Json held = Json::array();
  for (const tuner::Held& h : summary.held) held.push_back(HeldJson(h));
  Json verified = Json::array();
  for (const driver::knobs::KnobAddress& address : summary.verified) {
    verified.push_back(
        Json{{"knob", std::string(tuner::KnobName(address.knob))}, {"target", address.target}});
  }
  return Json{{"readings", std::move(readings)},
              {"unreadable", std::move(unreadable)},
              {"actions", std::move(actions)},
              {"held", std::move(held)},
              {"verified", std::move(verified)},
              {"gone", ResultsJson(summary.gone)},
              {"writes_failed", summary.writes_failed},
              {"not_journaled", summary.not_journaled},
              {"journal_error",
               summary.journal_error.ok() ? Json(nullptr) : Json(summary.journal_error.ToString())},
              {"summary", actuate::DescribeControlStep(summary)}};
}

Json RestoreReportJson(const actuate::RestoreReport& report) {
  return Json{{"restored", ResultsJson(report.restored)},
              {"kept", ResultsJson(report.kept)},
              {"left", ResultsJson(report.left)},
              {"failed", ResultsJson(report.failed)},
              {"error", report.error.ok() ? Json(nullptr) : Json(report.error.ToString())}};
}

absl::StatusOr<driver::knobs::KnobAddress> KnobAddressFromJson(const Json& body) {
  for (const char* field : {"knob", "target"}) {
    if (!body.contains(field) || !body[field].is_string() ||
        body[field].get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field \"", field, "\" must be a non-empty string"));
    }
  }
  const std::string name = body["knob"].get<std::string>();
  std::optional<tuner::Knob> knob = actuate::ParseKnobName(name);
  if (!knob) return absl::InvalidArgumentError(absl::StrCat("unknown knob \"", name, "\""));
  return driver::knobs::KnobAddress{*knob, body["target"].get<std::string>()};
}

}  // namespace nictune::http
