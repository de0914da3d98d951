// SPDX-License-Identifier: Apache-2.0
#include "agent/http/query.h"

#include <cmath>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nictune::http {
namespace {

std::optional<int> HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

absl::StatusOr<std::string> Decode(absl::string_view text, absl::string_view what) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      c = ' ';
    } else if (c == '%') {
      const std::optional<int> high = i + 1 < text.size() ? HexValue(text[i + 1]) : std::nullopt;
      const std::optional<int> low = i + 2 < text.size() ? HexValue(text[i + 2]) : std::nullopt;
      if (!high || !low) {
        return absl::InvalidArgumentError(
            absl::StrCat("query ", what, ": malformed %-escape at byte ", i));
      }
      c = static_cast<char>(*high * 16 + *low);
      i += 2;
    }
    if (absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat("query ", what, ": control byte ", static_cast<int>(c), " at byte ", i));
    }
    out.push_back(c);
  }
  return out;
}

bool IsSeriesName(absl::string_view name) {
  if (name.empty() || name.size() > 200) return false;
  if (!absl::ascii_isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':' &&
        c != '-') {
      return false;
    }
  }
  return true;
}

// Unix seconds: digits with an optional fraction of up to 9 digits; no sign, no exponent.
std::optional<absl::Time> ParseUnixSeconds(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, absl::MaxSplits('.', 1));
  const auto all_digits = [](absl::string_view s) {
    for (const char c : s) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  if (parts[0].empty() || parts[0].size() > 11 || !all_digits(parts[0])) return std::nullopt;
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(parts[0], &seconds)) return std::nullopt;
  int64_t nanos = 0;
  if (parts.size() == 2) {
    if (parts[1].empty() || parts[1].size() > 9 || !all_digits(parts[1])) return std::nullopt;
    if (!absl::SimpleAtoi(parts[1], &nanos)) return std::nullopt;
    for (size_t i = parts[1].size(); i < 9; ++i) nanos *= 10;
  }
  return absl::FromUnixSeconds(seconds) + absl::Nanoseconds(nanos);
}

absl::StatusOr<absl::Duration> ParseStep(const std::string& value) {
  absl::Duration step;
  if (std::optional<absl::Time> seconds = ParseUnixSeconds(value)) {
    step = *seconds - absl::UnixEpoch();
  } else if (!absl::ParseDuration(value, &step) || value == "inf" || value == "-inf") {
    return absl::InvalidArgumentError(
        absl::StrCat("query step=\"", value, "\": expected a duration (10s, 1m30s) or seconds"));
  }
  if (step < absl::Milliseconds(1) || step > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("query step=\"", value, "\": must be from 1ms to 24h"));
  }
  return step;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseQueryString(
    absl::string_view query) {
  if (query.size() > kMaxQueryBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("query of ", query.size(), " bytes exceeds the limit of ", kMaxQueryBytes));
  }
  std::vector<std::pair<std::string, std::string>> out;
  if (query.empty()) return out;
  for (const absl::string_view parameter : absl::StrSplit(query, '&')) {
    const size_t equals = parameter.find('=');
    if (parameter.empty() || equals == absl::string_view::npos || equals == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter \"", parameter, "\": expected name=value with a non-empty name"));
    }
    absl::StatusOr<std::string> name = Decode(parameter.substr(0, equals), "name");
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> value = Decode(parameter.substr(equals + 1), *name);
    if (!value.ok()) return value.status();
    out.emplace_back(*std::move(name), *std::move(value));
  }
  return out;
}

absl::StatusOr<absl::Time> ParseTimeParameter(absl::string_view name, const std::string& value) {
  if (std::optional<absl::Time> t = ParseUnixSeconds(value)) return *t;
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, value, &t, &error) || t == absl::InfiniteFuture() ||
      t == absl::InfinitePast() || t < absl::UnixEpoch() ||
      t > absl::FromUnixSeconds(253402300799)) {  // 9999-12-31T23:59:59Z
    return absl::InvalidArgumentError(absl::StrCat(
        "query ", name, "=\"", value, "\": expected RFC 3339 time or Unix seconds in 1970..9999"));
  }
  return t;
}

absl::StatusOr<HistoryQuery> ParseHistoryQuery(absl::string_view query, absl::Time now) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> parameters =
      ParseQueryString(query);
  if (!parameters.ok()) return parameters.status();
  std::optional<std::string> series, since, until, step;
  for (auto& [name, value] : *parameters) {
    std::optional<std::string>* slot = name == "series"  ? &series
                                       : name == "since" ? &since
                                       : name == "until" ? &until
                                       : name == "step"  ? &step
                                                         : nullptr;
    if (slot == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter \"", name, "\" is unknown; expected series, since, until, step"));
    }
    if (slot->has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", name, "\" is given more than once"));
    }
    *slot = std::move(value);
  }

  HistoryQuery out;
  if (!series || series->empty()) {
    return absl::InvalidArgumentError("query series: required, e.g. series=softnet_dropped");
  }
  for (const absl::string_view name : absl::StrSplit(*series, ',')) {
    if (!IsSeriesName(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query series: \"", name, "\" is not a series name ([A-Za-z_][A-Za-z0-9_.:-]*)"));
    }
    out.series.emplace_back(name);
  }
  if (out.series.size() > kMaxHistorySeries) {
    return absl::InvalidArgumentError(
        absl::StrCat("query series: ", out.series.size(), " names, at most ", kMaxHistorySeries));
  }
  out.until = now;
  if (until) {
    absl::StatusOr<absl::Time> t = ParseTimeParameter("until", *until);
    if (!t.ok()) return t.status();
    out.until = *t;
  }
  out.since = out.until - kDefaultHistoryRange;
  if (since) {
    absl::StatusOr<absl::Time> t = ParseTimeParameter("since", *since);
    if (!t.ok()) return t.status();
    out.since = *t;
  }
  out.step = kDefaultHistoryStep;
  if (step) {
    absl::StatusOr<absl::Duration> d = ParseStep(*step);
    if (!d.ok()) return d.status();
    out.step = *d;
  }
  if (out.since >= out.until) {
    return absl::InvalidArgumentError(absl::StrCat("query: since ", absl::FormatTime(out.since),
                                                   " is not before until ",
                                                   absl::FormatTime(out.until)));
  }
  absl::Duration remainder;  // this Abseil writes the remainder unconditionally
  const int64_t points = absl::IDivDuration(out.until - out.since, out.step, &remainder);
  if (points > kMaxHistoryPoints) {
    return absl::InvalidArgumentError(
        absl::StrCat("query: ", points, " steps of ", absl::FormatDuration(out.step),
                     " between since and until, at most ", kMaxHistoryPoints,
                     "; raise step or shorten the range"));
  }
  return out;
}

}  // namespace nictune::http
