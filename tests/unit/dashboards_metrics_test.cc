// SPDX-License-Identifier: Apache-2.0
// Every metric name the shipped PromQL uses (dashboard panels, annotations and variables, the
// Prometheus rules) is one the agent exports, as recorded in dashboards/metrics.txt from a live
// exposition (tests/bpf/dashboards_exposition_test.cc keeps that list true), or one listed in
// dashboards/metrics_planned.txt for the agent to add.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/dashboard_queries.h"
#include "tests/support/metric_families.h"

namespace nictune {
namespace {

using testing_support::MetricFamilies;
using testing_support::MetricNamesIn;

std::string ReadRepoFile(const std::string& relative) {
  absl::StatusOr<std::string> text =
      procfs::ReadFile(absl::StrCat(testing_support::SourceDir(), "/", relative));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

MetricFamilies ReadFamilyList(const std::string& relative) {
  absl::StatusOr<MetricFamilies> families =
      testing_support::ParseFamilyList(ReadRepoFile(relative), relative);
  EXPECT_TRUE(families.ok()) << families.status();
  return families.ok() ? *families : MetricFamilies{};
}

struct Query {
  std::string where;  // file and panel, for the failure message
  std::string promql;
};

// Every query of every dashboard in dashboards/: panels, annotations and variables' selectors.
std::vector<Query> DashboardQueries() {
  std::vector<Query> queries;
  for (const auto& entry :
       std::filesystem::directory_iterator(absl::StrCat(testing_support::SourceDir(), "/dashboards"))) {
    if (entry.path().extension() != ".json") continue;
    const std::string file = entry.path().filename();
    absl::StatusOr<testing_support::Dashboard> dashboard =
        testing_support::ReadDashboard(entry.path());
    EXPECT_TRUE(dashboard.ok()) << dashboard.status();
    if (!dashboard.ok()) continue;
    for (const testing_support::DashboardQuery& q : dashboard->panel_queries) {
      queries.push_back({absl::StrCat(file, " panel '", q.panel, "'"), q.expr});
    }
    for (const testing_support::DashboardQuery& q : dashboard->annotation_queries) {
      queries.push_back({absl::StrCat(file, " annotation '", q.panel, "'"), q.expr});
    }
    for (const testing_support::DashboardVariable& v : dashboard->variables) {
      queries.push_back({absl::StrCat(file, " variable ", v.name), v.selector});
    }
  }
  return queries;
}

// The expr: values of a rules file: inline, or a block scalar indented under the key.
std::vector<Query> RuleQueries(const std::string& relative) {
  std::vector<Query> queries;
  const std::string text = ReadRepoFile(relative);
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(lines[i]);
    if (!absl::StartsWith(stripped, "expr:")) continue;
    const size_t indent = lines[i].size() - stripped.size();
    std::string expr(absl::StripAsciiWhitespace(stripped.substr(5)));
    if (expr == "|" || expr == "|-") {
      expr.clear();
      while (i + 1 < lines.size() &&
             lines[i + 1].size() - absl::StripLeadingAsciiWhitespace(lines[i + 1]).size() >
                 indent) {
        absl::StrAppend(&expr, lines[++i], "\n");
      }
    }
    queries.push_back({absl::StrCat(relative, " line ", i + 1), expr});
  }
  return queries;
}

class ShippedPromql : public ::testing::Test {
 protected:
  // A histogram family is queried through its _bucket, _sum and _count series.
  bool ExportedOrPlanned(const std::string& name) const {
    return testing_support::FamilyOf(name, exported_).has_value() ||
           testing_support::FamilyOf(name, planned_).has_value();
  }

  MetricFamilies exported_ = ReadFamilyList("dashboards/metrics.txt");
  MetricFamilies planned_ = ReadFamilyList("dashboards/metrics_planned.txt");
};

TEST_F(ShippedPromql, TheExportedListIsReadAndDisjointFromThePlannedOne) {
  // An exported list that failed to read would let no name through; a planned list that failed to
  // read fails in ReadRepoFile (it may be empty: nothing planned).
  EXPECT_GT(exported_.size(), 30u);
  for (const auto& [name, type] : planned_) {
    EXPECT_FALSE(exported_.contains(name))
        << name << " is exported now: remove it from dashboards/metrics_planned.txt";
    EXPECT_THAT(type, ::testing::AnyOf("counter", "gauge", "histogram")) << name;
  }
}

TEST_F(ShippedPromql, DashboardsUseOnlyExportedOrPlannedMetrics) {
  const std::vector<Query> queries = DashboardQueries();
  ASSERT_GT(queries.size(), 20u);
  for (const Query& q : queries) {
    for (const std::string& name : MetricNamesIn(q.promql)) {
      EXPECT_TRUE(ExportedOrPlanned(name))
          << q.where << ": " << name << " is neither exported (dashboards/metrics.txt) nor "
          << "planned (dashboards/metrics_planned.txt)";
    }
  }
}

TEST_F(ShippedPromql, RulesUseOnlyExportedOrPlannedMetrics) {
  const std::vector<Query> queries = RuleQueries("deploy/prometheus/nictune_rules.yml");
  ASSERT_GT(queries.size(), 8u);
  for (const Query& q : queries) {
    for (const std::string& name : MetricNamesIn(q.promql)) {
      EXPECT_TRUE(ExportedOrPlanned(name))
          << q.where << ": " << name << " is neither exported nor planned";
    }
  }
}

TEST_F(ShippedPromql, EveryPlannedMetricIsUsedSomewhere) {
  std::set<std::string> used;
  for (const Query& q : DashboardQueries()) used.merge(MetricNamesIn(q.promql));
  for (const Query& q : RuleQueries("deploy/prometheus/nictune_rules.yml")) {
    used.merge(MetricNamesIn(q.promql));
  }
  for (const auto& [name, type] : planned_) {
    EXPECT_TRUE(used.contains(name)) << name << " is planned but no dashboard or rule uses it";
  }
}

// The scanner itself: names inside label values and recorded series are not metrics.
TEST(MetricNamesIn, TakesMetricsAndSkipsStringsAndRecordingRules) {
  EXPECT_THAT(
      MetricNamesIn(R"(sum by (cpu) (rate(nictune_softirq_seconds_total{vector="nictune_x"}[5m]))
      / instance:nictune_socket_drops:rate5m + nictune_rx_truesize_bytes_bucket
      + nictune_socket_drops:rate5m)"),
      ::testing::ElementsAre("nictune_rx_truesize_bytes_bucket", "nictune_softirq_seconds_total"));
}

TEST(MetricNamesIn, HistogramSeriesResolveOnlyForHistogramFamilies) {
  const MetricFamilies families{{"nictune_rx_truesize_bytes", "histogram"},
                                {"nictune_napi_polls_total", "counter"}};
  using testing_support::FamilyOf;
  EXPECT_EQ(FamilyOf("nictune_rx_truesize_bytes_bucket", families), "nictune_rx_truesize_bytes");
  EXPECT_EQ(FamilyOf("nictune_rx_truesize_bytes_count", families), "nictune_rx_truesize_bytes");
  EXPECT_EQ(FamilyOf("nictune_napi_polls_total", families), "nictune_napi_polls_total");
  EXPECT_EQ(FamilyOf("nictune_napi_polls_total_count", families), std::nullopt);
  EXPECT_EQ(FamilyOf("nictune_rx_truesize", families), std::nullopt);
}

TEST(ParseFamilyList, NamesTheListAndLineOfAMalformedEntry) {
  absl::StatusOr<MetricFamilies> families = testing_support::ParseFamilyList(
      "# comment\nnictune_a_total counter  # trailing\n\nnictune_b\n", "metrics.txt");
  ASSERT_FALSE(families.ok());
  EXPECT_EQ(families.status().message(),
            "metrics.txt line 4: expected 'name type', got 'nictune_b'");
  families = testing_support::ParseFamilyList("# c\nnictune_a_total counter # x\n", "m");
  ASSERT_TRUE(families.ok()) << families.status();
  EXPECT_EQ(*families, (MetricFamilies{{"nictune_a_total", "counter"}}));
}

}  // namespace
}  // namespace nictune
