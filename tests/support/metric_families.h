// SPDX-License-Identifier: Apache-2.0
// Metric family names as the repository keeps them (dashboards/metrics.txt, the families a live
// agent exports; dashboards/metrics_planned.txt, those it does not yet), as an exposition declares
// them and as PromQL reads them, so that every test comparing the three reads them one way.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::testing_support {

using MetricFamilies = std::map<std::string, std::string>;  // name -> counter, gauge or histogram

// "name type" lines, '#' starting a comment; `what` names the list in errors, e.g.
// "dashboards/metrics.txt line 4: expected 'name type', got 'nictune_x'".
absl::StatusOr<MetricFamilies> ParseFamilyList(absl::string_view text, absl::string_view what);

// The "# TYPE name type" lines of a text-format exposition.
MetricFamilies ExposedFamilies(absl::string_view exposition);

// The nictune_* metric names a PromQL expression reads, outside string literals. Recorded series
// (level:nictune_...:operation, or any name with a ':') are not families and are left out.
std::set<std::string> MetricNamesIn(absl::string_view promql);

// The family of `families` a series name belongs to: the name itself, or the histogram whose
// _bucket, _sum or _count series it is.
std::optional<std::string> FamilyOf(const std::string& series, const MetricFamilies& families);

}  // namespace nictune::testing_support
