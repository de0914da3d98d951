// Every metric name the shipped PromQL uses (dashboard panels, annotations and variables, the
// Prometheus rules) is one the agent exports, as recorded in dashboards/metrics.txt from a live
// exposition (tests/bpf/dashboards_exposition_test.cc keeps that list true), or one listed in
// dashboards/metrics_planned.txt for the agent to add.
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune {
namespace {

using Families = std::map<std::string, std::string>;  // name -> counter, gauge or histogram

std::string RepoRoot() {
  return std::filesystem::path(NICTUNE_FIXTURES).parent_path().parent_path().parent_path();
}

std::string ReadRepoFile(const std::string& relative) {
  absl::StatusOr<std::string> text = procfs::ReadFile(absl::StrCat(RepoRoot(), "/", relative));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// "name type" a line; '#' starts a comment.
Families ParseFamilies(const std::string& relative) {
  Families families;
  for (absl::string_view line : absl::StrSplit(ReadRepoFile(relative), '\n')) {
    line = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    EXPECT_EQ(fields.size(), 2u) << relative << ": expected 'name type', got '" << line << "'";
    if (fields.size() == 2) families[fields[0]] = fields[1];
  }
  return families;
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

// The identifiers starting with nictune_ outside string literals: metric names. Recording rules
// (instance:nictune_...:rate5m) start with their level, so they are not taken for metrics.
std::set<std::string> MetricNamesIn(absl::string_view promql) {
  std::set<std::string> names;
  char quote = 0;
  for (size_t i = 0; i < promql.size(); ++i) {
    const char c = promql[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      quote = c;
      continue;
    }
    if (!IsNameChar(c) || (i > 0 && IsNameChar(promql[i - 1]))) continue;
    size_t end = i;
    while (end < promql.size() && IsNameChar(promql[end])) ++end;
    const absl::string_view word = promql.substr(i, end - i);
    if (absl::StartsWith(word, "nictune_")) names.insert(std::string(word));
    i = end - 1;
  }
  return names;
}

// A histogram family is queried through its _bucket, _sum and _count series.
bool Resolves(const std::string& name, const Families& families) {
  if (families.contains(name)) return true;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    if (!absl::EndsWith(name, suffix)) continue;
    const auto it = families.find(name.substr(0, name.size() - std::strlen(suffix)));
    if (it != families.end() && it->second == "histogram") return true;
  }
  return false;
}

struct Query {
  std::string where;  // file and panel, for the failure message
  std::string promql;
};

void CollectPanelQueries(const std::string& file, const nlohmann::json& panels,
                         std::vector<Query>& out) {
  for (const nlohmann::json& panel : panels) {
    const std::string where = absl::StrCat(file, " panel '", panel.value("title", "?"), "'");
    for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
      out.push_back({where, target.value("expr", "")});
    }
    if (panel.contains("panels")) CollectPanelQueries(file, panel["panels"], out);
  }
}

std::vector<Query> DashboardQueries() {
  std::vector<Query> queries;
  for (const auto& entry : std::filesystem::directory_iterator(RepoRoot() + "/dashboards")) {
    if (entry.path().extension() != ".json") continue;
    const std::string file = entry.path().filename();
    const nlohmann::json dashboard =
        nlohmann::json::parse(ReadRepoFile("dashboards/" + file), nullptr, false);
    EXPECT_FALSE(dashboard.is_discarded()) << file << ": not valid JSON";
    if (dashboard.is_discarded()) continue;
    CollectPanelQueries(file, dashboard.value("panels", nlohmann::json::array()), queries);
    for (const nlohmann::json& a :
         dashboard["annotations"].value("list", nlohmann::json::array())) {
      if (a.contains("expr")) queries.push_back({file + " annotation", a["expr"]});
    }
    for (const nlohmann::json& v : dashboard["templating"].value("list", nlohmann::json::array())) {
      if (v.value("type", "") == "query") queries.push_back({file + " variable", v["definition"]});
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
  Families exported_ = ParseFamilies("dashboards/metrics.txt");
  Families planned_ = ParseFamilies("dashboards/metrics_planned.txt");
};

TEST_F(ShippedPromql, TheListsAreNonEmptyAndDisjoint) {
  // A list that failed to read would let every name through.
  EXPECT_GT(exported_.size(), 30u);
  EXPECT_FALSE(planned_.empty());
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
    EXPECT_FALSE(q.promql.empty()) << q.where << ": empty query";
    for (const std::string& name : MetricNamesIn(q.promql)) {
      EXPECT_TRUE(Resolves(name, exported_) || Resolves(name, planned_))
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
      EXPECT_TRUE(Resolves(name, exported_) || Resolves(name, planned_))
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

// The scanner itself: names inside label values and recording-rule names are not metrics.
TEST(MetricNamesIn, TakesMetricsAndSkipsStringsAndRecordingRules) {
  EXPECT_THAT(
      MetricNamesIn(R"(sum by (cpu) (rate(nictune_softirq_seconds_total{vector="nictune_x"}[5m]))
      / instance:nictune_socket_drops:rate5m + nictune_rx_truesize_bytes_bucket)"),
      ::testing::ElementsAre("nictune_rx_truesize_bytes_bucket", "nictune_softirq_seconds_total"));
}

TEST(MetricNamesIn, HistogramSeriesResolveOnlyForHistogramFamilies) {
  const Families families{{"nictune_rx_truesize_bytes", "histogram"},
                          {"nictune_napi_polls_total", "counter"}};
  EXPECT_TRUE(Resolves("nictune_rx_truesize_bytes_bucket", families));
  EXPECT_TRUE(Resolves("nictune_rx_truesize_bytes_count", families));
  EXPECT_FALSE(Resolves("nictune_napi_polls_total_count", families));
  EXPECT_FALSE(Resolves("nictune_rx_truesize", families));
}

}  // namespace
}  // namespace nictune
