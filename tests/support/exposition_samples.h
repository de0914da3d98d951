// SPDX-License-Identifier: Apache-2.0
// The samples of a Prometheus text-format exposition (nictuned's /metrics, node_exporter's), for
// tests that compare the values two exporters serve: "name{label="value",...} value" lines,
// comments skipped, label values unescaped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::testing_support {

struct ExposedSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Fails naming `what` (e.g. "node_exporter /metrics") and the line it could not read.
absl::StatusOr<std::vector<ExposedSample>> ParseExposedSamples(absl::string_view exposition,
                                                               absl::string_view what);

}  // namespace nictune::testing_support
