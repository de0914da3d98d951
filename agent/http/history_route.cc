// SPDX-License-Identifier: Apache-2.0
#include "agent/http/history_route.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/http/query.h"
#include "agent/http/unix_seconds.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

struct SplitQuery {
  std::string history_query;  // the parameters ParseHistoryQuery knows, still encoded
  store::Labels match;
};

bool IsLabelName(absl::string_view name) {
  if (name.empty() || name.size() > 100) return false;
  if (!absl::ascii_isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Takes the label=KEY=VALUE parameters out and leaves the rest, as sent, for ParseHistoryQuery.
absl::StatusOr<SplitQuery> SplitLabels(absl::string_view query) {
  // Validates the whole string (escapes, empty parameters, size) before looking at pieces.
  if (absl::Status s = ParseQueryString(query).status(); !s.ok()) return s;
  SplitQuery out;
  std::vector<absl::string_view> rest;
  for (const absl::string_view piece : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> parameter =
        ParseQueryString(piece);
    if (!parameter.ok()) return parameter.status();
    const auto& [name, value] = parameter->front();
    if (name != "label") {
      rest.push_back(piece);
      continue;
    }
    const size_t equals = value.find('=');
    if (equals == std::string::npos || !IsLabelName(absl::string_view(value).substr(0, equals))) {
      return absl::InvalidArgumentError(
          absl::StrCat("query label=\"", value,
                       "\": expected KEY=VALUE with KEY a label name, e.g. ", "label=device=eth0"));
    }
    std::string key = value.substr(0, equals);
    for (const auto& [existing, unused] : out.match) {
      if (existing == key) {
        return absl::InvalidArgumentError(
            absl::StrCat("query label \"", key, "\" is given more than once"));
      }
    }
    out.match.emplace_back(std::move(key), value.substr(equals + 1));
  }
  if (out.match.size() > kMaxHistoryLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat("query: ", out.match.size(), " label filters, at most ", kMaxHistoryLabels));
  }
  std::sort(out.match.begin(), out.match.end());
  out.history_query = absl::StrJoin(rest, "&");
  return out;
}

Json LabelsJson(const store::Labels& labels) {
  Json out = Json::object();
  for (const auto& [key, value] : labels) out[key] = value;
  return out;
}

Response Answer(store::Store& store, const Request& request) {
  absl::StatusOr<SplitQuery> split = SplitLabels(request.query);
  if (!split.ok()) {
    return ErrorResponse(400, "bad_request", std::string(split.status().message()));
  }
  absl::StatusOr<HistoryQuery> query = ParseHistoryQuery(split->history_query, absl::Now());
  if (!query.ok()) {
    return ErrorResponse(400, "bad_request", std::string(query.status().message()));
  }

  for (const std::string& name : query->series) {
    absl::StatusOr<bool> known = store.HasSeries(name);
    if (!known.ok()) {
      return ErrorResponse(503, "store_unavailable",
                           absl::StrCat("history of ", name, ": ", known.status().message()));
    }
    if (!*known) {
      return ErrorResponse(404, "not_found",
                           absl::StrCat("no stored series is named ", name, " (GET ",
                                        kHistorySeriesPath, " lists them)"));
    }
  }

  Json series = Json::array();
  absl::Duration coarsest = absl::ZeroDuration();
  for (const std::string& name : query->series) {
    absl::StatusOr<store::HistoryResult> result = store.QueryHistory({.series = name,
                                                                      .match = split->match,
                                                                      .since = query->since,
                                                                      .until = query->until,
                                                                      .step = query->step});
    if (!result.ok()) {
      // The store's bounds are the client's to fix; anything else is the store's failure.
      if (absl::IsInvalidArgument(result.status())) {
        return ErrorResponse(400, "bad_request", std::string(result.status().message()));
      }
      return ErrorResponse(503, "store_unavailable",
                           absl::StrCat("history of ", name, ": ", result.status().message()));
    }
    coarsest = std::max(coarsest, result->resolution);
    for (const store::SeriesHistory& one : result->series) {
      Json points = Json::array();
      for (const store::HistoryPoint& point : one.points) {
        points.push_back(Json::array({UnixSeconds(point.ts), point.value}));
      }
      series.push_back(Json{{"name", one.name},
                            {"labels", LabelsJson(one.labels)},
                            {"resolution_s", absl::ToDoubleSeconds(result->resolution)},
                            {"points", std::move(points)}});
    }
  }
  const Json body{{"since", UnixSeconds(query->since)},
                  {"until", UnixSeconds(query->until)},
                  {"step_s", absl::ToDoubleSeconds(query->step)},
                  {"resolution_s", absl::ToDoubleSeconds(coarsest)},
                  {"series", std::move(series)}};
  return Response{.status = 200, .body = model::JsonText(body)};
}

}  // namespace

absl::Status AddHistoryRoute(Router& router, store::Store& store) {
  absl::Status history =
      router.Add("GET", kHistoryPath, Effect::kReadsOnly,
                 [&store](const Request& request) { return Answer(store, request); });
  if (!history.ok()) return history;
  return router.Add("GET", kHistorySeriesPath, Effect::kReadsOnly, [&store](const Request&) {
    absl::StatusOr<std::vector<std::string>> names = store.SeriesNames();
    if (!names.ok()) {
      return ErrorResponse(
          503, "store_unavailable",
          absl::StrCat("GET ", kHistorySeriesPath, ": ", names.status().message()));
    }
    return Response{.body = model::JsonText(Json{{"series", *names}})};
  });
}

}  // namespace nictune::http
