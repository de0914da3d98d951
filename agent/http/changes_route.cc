// SPDX-License-Identifier: Apache-2.0
#include "agent/http/changes_route.h"

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/http/query.h"
#include "agent/http/unix_seconds.h"
#include "agent/model/json_text.h"
#include "agent/store/change_state.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

absl::StatusOr<absl::Time> ParseChangesQuery(absl::string_view query) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> parameters =
      ParseQueryString(query);
  if (!parameters.ok()) return parameters.status();
  std::optional<absl::Time> since;
  for (const auto& [name, value] : *parameters) {
    if (name != "since") {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", name, "\" is unknown; expected since"));
    }
    if (since.has_value()) {
      return absl::InvalidArgumentError("query parameter \"since\" is given more than once");
    }
    absl::StatusOr<absl::Time> t = ParseTimeParameter("since", value);
    if (!t.ok()) return t.status();
    since = *t;
  }
  return since.value_or(absl::UnixEpoch());
}

Json ChangeJson(const store::ChangeRecord& change) {
  return Json{{"id", change.id},
              {"boot_id", change.boot_id},
              {"knob", change.knob},
              {"target", change.target},
              {"original", change.original},
              {"new_value", change.new_value ? Json(*change.new_value) : Json(nullptr)},
              {"state", std::string(store::ChangeStateName(change.state))},
              {"pending", store::IsPending(change.state)},
              {"reason", change.reason},
              {"ts", UnixSeconds(change.ts)},
              {"updated_ts", UnixSeconds(change.updated_ts)}};
}

Response Answer(store::Journal& journal, store::Store* store, const Request& request) {
  absl::StatusOr<absl::Time> since = ParseChangesQuery(request.query);
  if (!since.ok()) {
    return ErrorResponse(400, "bad_request", std::string(since.status().message()));
  }
  absl::StatusOr<std::vector<store::ChangeRecord>> changes = journal.ChangesSince(*since);
  if (!changes.ok()) {
    return ErrorResponse(503, "store_unavailable",
                         absl::StrCat("change journal: ", changes.status().message()));
  }
  absl::StatusOr<std::vector<store::EventRecord>> events =
      store != nullptr ? store->EventsSince(*since) : std::vector<store::EventRecord>{};
  if (!events.ok()) {
    return ErrorResponse(503, "store_unavailable",
                         absl::StrCat("events: ", events.status().message()));
  }
  Json changes_json = Json::array();
  for (const store::ChangeRecord& change : *changes) changes_json.push_back(ChangeJson(change));
  Json events_json = Json::array();
  for (const store::EventRecord& event : *events) {
    events_json.push_back(
        Json{{"ts", UnixSeconds(event.ts)}, {"level", event.level}, {"message", event.message}});
  }
  const Json body{{"since", UnixSeconds(*since)},
                  {"changes", std::move(changes_json)},
                  {"events", std::move(events_json)}};
  return Response{.status = 200, .body = model::JsonText(body)};
}

}  // namespace

absl::Status AddChangesRoute(Router& router, store::Journal& journal, store::Store* store) {
  return router.Add("GET", kChangesPath, Effect::kReadsOnly,
                    [&journal, store](const Request& r) { return Answer(journal, store, r); });
}

}  // namespace nictune::http
