// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/agent_request.h"

#include <cctype>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "agent/http/query.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

AgentRequest Get(std::string target) { return {.method = "GET", .target = std::move(target)}; }

AgentRequest Post(std::string target, const Json& body) {
  return {.method = "POST", .target = std::move(target), .body = model::JsonText(body)};
}

Json WhatifJson(const WhatifCommand& w) {
  Json body{{"rate_pps", w.rate_pps},
            {"truesize_bytes", w.truesize_bytes},
            {"rcvbuf_bytes", w.rcvbuf_bytes}};
  if (w.drain_gap_us) body["drain_gap_us"] = *w.drain_gap_us;
  if (w.margin) body["margin"] = *w.margin;
  if (w.rx_usecs) body["rx_usecs"] = *w.rx_usecs;
  if (w.ring_size) body["ring_size"] = *w.ring_size;
  return body;
}

absl::StatusOr<AgentRequest> HistoryRequest(const HistoryCommand& h, absl::Time now) {
  if (h.list) return Get("/api/v1/history/series");
  std::vector<std::string> parameters{
      absl::StrCat("series=", PercentEncode(absl::StrJoin(h.series, ",")))};
  for (const auto& [name, value] : {std::pair{"since", h.since}, std::pair{"until", h.until}}) {
    if (!value) continue;
    absl::StatusOr<std::string> resolved = ResolveHistoryTime(name, *value, now);
    if (!resolved.ok()) return resolved.status();
    parameters.push_back(absl::StrCat(name, "=", PercentEncode(*resolved)));
  }
  if (h.step) parameters.push_back(absl::StrCat("step=", PercentEncode(*h.step)));
  for (const std::string& label : h.labels) {
    parameters.push_back(absl::StrCat("label=", PercentEncode(label)));
  }
  return Get(absl::StrCat("/api/v1/history?", absl::StrJoin(parameters, "&")));
}

}  // namespace

std::string PercentEncode(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      absl::StrAppendFormat(&out, "%%%02X", byte);
    }
  }
  return out;
}

absl::StatusOr<std::string> ResolveHistoryTime(absl::string_view option, absl::string_view value,
                                               absl::Time now) {
  if (value == "now")
    return absl::StrFormat("%.3f", absl::ToDoubleSeconds(now - absl::UnixEpoch()));
  absl::Duration ago;
  const bool relative = !value.empty() && value.front() == '-';
  const bool valid = relative
                         ? absl::ParseDuration(value.substr(1), &ago) && ago > absl::ZeroDuration()
                         : http::ParseTimeParameter(option, std::string(value)).ok();
  if (!valid) {
    return absl::InvalidArgumentError(
        absl::StrCat("nictune history --", option, "=", value,
                     ": expected now, -DURATION (-1h, -15m), RFC 3339 or Unix seconds"));
  }
  if (relative) {
    return absl::StrFormat("%.3f", absl::ToDoubleSeconds(now - ago - absl::UnixEpoch()));
  }
  return std::string(value);  // the agent parses it with the same parser
}

std::string WhatifRequestBody(const WhatifCommand& whatif) {
  return model::JsonText(WhatifJson(whatif));
}

absl::StatusOr<AgentRequest> RequestFor(const Command& command, absl::Time now) {
  return std::visit(
      [now](const auto& c) -> absl::StatusOr<AgentRequest> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, StatusCommand>) {
          return Get("/api/v1/status");
        } else if constexpr (std::is_same_v<T, TopCommand>) {
          return Get("/api/v1/snapshot");
        } else if constexpr (std::is_same_v<T, RecommendCommand>) {
          return Get("/api/v1/recommendations");
        } else if constexpr (std::is_same_v<T, WhatifCommand>) {
          return Post("/api/v1/whatif", WhatifJson(c));
        } else if constexpr (std::is_same_v<T, ApplyCommand>) {
          Json body = Json::object();
          if (c.knob) body = Json{{"knob", *c.knob}, {"target", *c.target}};
          return Post("/api/v1/apply", body);
        } else if constexpr (std::is_same_v<T, RollbackCommand>) {
          if (c.change_id) return Post("/api/v1/rollback", Json{{"change_id", *c.change_id}});
          return Post("/api/v1/rollback", Json{{"knob", *c.knob}, {"target", *c.target}});
        } else if constexpr (std::is_same_v<T, RestoreCommand>) {
          return Post("/api/v1/restore", Json::object());
        } else if constexpr (std::is_same_v<T, HistoryCommand>) {
          return HistoryRequest(c, now);
        } else {
          static_assert(std::is_same_v<T, HelpCommand> || std::is_same_v<T, VersionCommand>);
          return absl::InvalidArgumentError("nictune help and version send no request");
        }
      },
      command);
}

}  // namespace nictune::cli
