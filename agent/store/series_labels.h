// SPDX-License-Identifier: Apache-2.0
// The canonical text of a label set, as the series table keys it: a JSON object with sorted keys,
// so equal label sets always intern to the same series.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/store/records.h"

namespace nictune::store {

// InvalidArgument when a key repeats or is empty.
absl::StatusOr<std::string> EncodeLabels(const Labels& labels);
// InvalidArgument when `text` is not an object of string values (a damaged row).
absl::StatusOr<Labels> DecodeLabels(const std::string& text);

// True when every pair of `match` is in `labels`.
bool LabelsMatch(const Labels& labels, const Labels& match);

// Prometheus metric-name syntax: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidSeriesName(const std::string& name);

}  // namespace nictune::store
