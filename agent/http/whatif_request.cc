// SPDX-License-Identifier: Apache-2.0
#include "agent/http/whatif_request.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxQuotedNameBytes = 64;  // of an unknown field's name echoed in an error

std::string Quoted(const std::string& name) {
  if (name.size() <= kMaxQuotedNameBytes) return absl::StrCat("\"", name, "\"");
  return absl::StrCat("\"", name.substr(0, kMaxQuotedNameBytes), "...\"");
}

absl::Status FieldError(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("whatif field \"", field, "\": ", problem));
}

std::string Describe(const Json& value) {
  // Only scalars are quoted back; a nested value is named by its type.
  if (value.is_structured()) return value.type_name();
  return model::JsonText(value).substr(0, 40);
}

absl::StatusOr<double> ReadNumber(const Json& object, absl::string_view field, double lo,
                                  double hi) {
  const Json& value = object.at(std::string(field));
  if (!value.is_number()) {
    return FieldError(field, absl::StrCat("expected a number, got ", Describe(value)));
  }
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < lo || number > hi) {
    return FieldError(field,
                      absl::StrCat("must be >= ", lo, " and <= ", hi, ", got ", Describe(value)));
  }
  return number;
}

absl::StatusOr<int64_t> ReadInteger(const Json& object, absl::string_view field, int64_t lo,
                                    int64_t hi) {
  const Json& value = object.at(std::string(field));
  if (!value.is_number_integer()) {
    return FieldError(field, absl::StrCat("expected an integer, got ", Describe(value)));
  }
  // An unsigned beyond int64 cannot be in range; compare it before converting.
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return FieldError(field,
                      absl::StrCat("must be from ", lo, " to ", hi, ", got ", Describe(value)));
  }
  const int64_t number = value.get<int64_t>();
  if (number < lo || number > hi) {
    return FieldError(field,
                      absl::StrCat("must be from ", lo, " to ", hi, ", got ", Describe(value)));
  }
  return number;
}

// The fields of an object whose keys are known and present where required.
absl::StatusOr<tuner::WhatIfQuestion> ReadFields(const Json& object) {
  tuner::WhatIfQuestion out;
  absl::StatusOr<double> rate =
      ReadNumber(object, "rate_pps", tuner::kMinWhatIfRatePps, tuner::kMaxWhatIfRatePps);
  if (!rate.ok()) return rate.status();
  out.rate_pps = *rate;
  absl::StatusOr<int64_t> truesize =
      ReadInteger(object, "truesize_bytes", 1, tuner::kMaxWhatIfTruesizeBytes);
  if (!truesize.ok()) return truesize.status();
  out.truesize_bytes = *truesize;
  absl::StatusOr<int64_t> rcvbuf =
      ReadInteger(object, "rcvbuf_bytes", 1, tuner::kMaxWhatIfRcvbufBytes);
  if (!rcvbuf.ok()) return rcvbuf.status();
  out.rcvbuf_bytes = *rcvbuf;
  if (object.contains("drain_gap_us")) {
    absl::StatusOr<int64_t> gap =
        ReadInteger(object, "drain_gap_us", 0, tuner::kMaxWhatIfDrainGapUs);
    if (!gap.ok()) return gap.status();
    out.drain_gap_us = *gap;
  }
  if (object.contains("margin")) {
    absl::StatusOr<double> margin = ReadNumber(object, "margin", 0, tuner::kMaxWhatIfMargin);
    if (!margin.ok()) return margin.status();
    out.margin = *margin;
  }
  for (auto [field, lo, hi, value] :
       {std::tuple{"rx_usecs", int64_t{0}, tuner::kMaxWhatIfRxUsecs, &out.rx_usecs},
        std::tuple{"ring_size", int64_t{1}, tuner::kMaxWhatIfRingSize, &out.ring_size}}) {
    if (!object.contains(field)) continue;
    absl::StatusOr<int64_t> read = ReadInteger(object, field, lo, hi);
    if (!read.ok()) return read.status();
    *value = *read;
  }
  return out;
}

}  // namespace

absl::StatusOr<tuner::WhatIfQuestion> ParseWhatifRequest(absl::string_view body) {
  // nlohmann keeps the last of repeated keys silently; the callback sees each top-level key.
  std::set<std::string> seen;
  std::string repeated;
  const Json::parser_callback_t note_keys = [&](int depth, Json::parse_event_t event,
                                                Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1 && parsed.is_string()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!seen.insert(key).second && repeated.empty()) repeated = key;
    }
    return true;
  };
  const Json object = Json::parse(body.begin(), body.end(), note_keys, /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat("whatif body of ", body.size(), " bytes is not valid JSON"));
  }
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("whatif body: expected a JSON object, got ", object.type_name()));
  }
  if (!repeated.empty()) return FieldError(repeated, "given more than once");

  static const std::set<std::string> kKnown = {"rate_pps",     "truesize_bytes", "rcvbuf_bytes",
                                               "drain_gap_us", "margin",         "rx_usecs",
                                               "ring_size"};
  for (const auto& [key, unused] : object.items()) {
    if (kKnown.count(key) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "whatif field ", Quoted(key),
          " is unknown; expected rate_pps, truesize_bytes, rcvbuf_bytes, drain_gap_us, margin, "
          "rx_usecs, ring_size"));
    }
  }
  for (const char* required : {"rate_pps", "truesize_bytes", "rcvbuf_bytes"}) {
    if (!object.contains(required)) return FieldError(required, "required");
  }

  return ReadFields(object);
}

}  // namespace nictune::http
