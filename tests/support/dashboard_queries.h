// SPDX-License-Identifier: Apache-2.0
// The PromQL a Grafana dashboard JSON asks of Prometheus: every panel target's expr (rows
// included), every Prometheus annotation's expr, and the query template variables, so that a test
// can run each of them against a real server the way Grafana would.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::testing_support {

struct DashboardQuery {
  std::string panel;   // the panel's (or annotation's) title
  std::string ref_id;  // "A", "B", ...; empty for annotations
  std::string expr;
};

// A template variable of type "query" whose query is label_values(selector, label).
struct DashboardVariable {
  std::string name;
  std::string selector;  // may reference other variables ("...{instance=~\"$instance\"}")
  std::string label;
  bool include_all = false;
  std::string all_value;  // what "All" stands for ("" when include_all is false)
};

struct Dashboard {
  std::string uid;
  std::vector<DashboardQuery> panel_queries;
  std::vector<DashboardQuery> annotation_queries;
  std::vector<DashboardVariable> variables;
};

// Reads and parses a dashboard file; errors name the file and what is missing.
absl::StatusOr<Dashboard> ReadDashboard(const std::string& path);

// Replaces $name and ${name} with values[name], longest names first so that $instance never eats
// the start of $instances.
std::string ExpandVariables(absl::string_view expr,
                            const std::map<std::string, std::string>& values);

}  // namespace nictune::testing_support
