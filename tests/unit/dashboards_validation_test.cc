// SPDX-License-Identifier: Apache-2.0
// The Grafana dashboards are importable and self-describing: well-formed JSON with stable unique
// uids, a datasource variable (no __inputs) and a host variable, and every query panel bound to
// that variable with a unit, a description and a text for its empty state. No ratio divides by a
// series that can be zero. Prometheus' own parser (promtool) accepts every query once Grafana's
// variables are filled in.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/dashboard_queries.h"
#include "tests/support/subprocess.h"

namespace nictune {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

struct Dashboard {
  std::string file;
  nlohmann::json json;
};

std::vector<Dashboard> LoadDashboards() {
  std::vector<Dashboard> dashboards;
  for (const auto& entry :
       std::filesystem::directory_iterator(absl::StrCat(testing_support::SourceDir(), "/dashboards"))) {
    if (entry.path().extension() != ".json") continue;
    absl::StatusOr<std::string> text = procfs::ReadFile(entry.path());
    EXPECT_TRUE(text.ok()) << text.status();
    if (!text.ok()) continue;
    dashboards.push_back({entry.path().filename(), nlohmann::json::parse(*text, nullptr, false)});
  }
  return dashboards;
}

// Panels nested in collapsed rows count as much as top-level ones.
void Flatten(const nlohmann::json& panels, std::vector<nlohmann::json>& out) {
  for (const nlohmann::json& panel : panels) {
    out.push_back(panel);
    if (panel.contains("panels")) Flatten(panel["panels"], out);
  }
}

std::vector<nlohmann::json> PanelsOf(const Dashboard& d) {
  std::vector<nlohmann::json> panels;
  Flatten(d.json.value("panels", nlohmann::json::array()), panels);
  return panels;
}

bool IsDatasourceVariable(const nlohmann::json& datasource) {
  if (datasource.is_string()) return datasource == "${datasource}";
  return datasource.is_object() && datasource.value("uid", "") == "${datasource}";
}

std::optional<nlohmann::json> Variable(const Dashboard& d, const std::string& name) {
  for (const nlohmann::json& v : d.json["templating"].value("list", nlohmann::json::array())) {
    if (v.value("name", "") == name) return v;
  }
  return std::nullopt;
}

// Every range selector, e.g. "[5m]" or "[$__rate_interval]".
std::vector<std::string> RangeSelectors(const std::string& promql) {
  std::vector<std::string> ranges;
  for (size_t open = promql.find('['); open != std::string::npos;
       open = promql.find('[', open + 1)) {
    const size_t close = promql.find(']', open);
    if (close == std::string::npos) break;
    ranges.push_back(promql.substr(open, close - open + 1));
  }
  return ranges;
}

class Dashboards : public ::testing::Test {
 protected:
  std::vector<Dashboard> dashboards_ = LoadDashboards();
};

TEST_F(Dashboards, AreWellFormedWithStableUniqueUids) {
  std::set<std::string> uids;
  for (const Dashboard& d : dashboards_) {
    ASSERT_FALSE(d.json.is_discarded()) << d.file << ": not valid JSON";
    const std::string uid = d.json.value("uid", "");
    EXPECT_THAT(uid, ::testing::MatchesRegex("nictune-[a-z]+")) << d.file;
    EXPECT_TRUE(uids.insert(uid).second) << d.file << ": uid " << uid << " used twice";
    EXPECT_FALSE(d.json.contains("__inputs")) << d.file << ": use the datasource variable";
    EXPECT_FALSE(d.json.value("title", "").empty()) << d.file;
    EXPECT_FALSE(d.json.value("description", "").empty()) << d.file;
  }
  EXPECT_EQ(uids, (std::set<std::string>{"nictune-fleet", "nictune-host", "nictune-tuning"}));
}

TEST_F(Dashboards, HaveADatasourceAndAHostVariable) {
  for (const Dashboard& d : dashboards_) {
    const std::optional<nlohmann::json> datasource = Variable(d, "datasource");
    ASSERT_TRUE(datasource.has_value()) << d.file;
    EXPECT_EQ(datasource->value("type", ""), "datasource") << d.file;
    EXPECT_EQ(datasource->value("query", ""), "prometheus") << d.file;
    const std::optional<nlohmann::json> instance = Variable(d, "instance");
    ASSERT_TRUE(instance.has_value()) << d.file;
    EXPECT_TRUE(IsDatasourceVariable(instance->value("datasource", nlohmann::json()))) << d.file;
    for (const nlohmann::json& v : d.json["templating"]["list"]) {
      if (v.value("type", "") != "query") continue;
      EXPECT_TRUE(IsDatasourceVariable(v.value("datasource", nlohmann::json())))
          << d.file << " variable " << v.value("name", "");
    }
  }
}

TEST_F(Dashboards, EveryQueryPanelHasTheDatasourceVariableAUnitADescriptionAndAnEmptyText) {
  for (const Dashboard& d : dashboards_) {
    std::set<int> ids;
    size_t query_panels = 0;
    for (const nlohmann::json& panel : PanelsOf(d)) {
      const std::string where = absl::StrCat(d.file, " panel '", panel.value("title", "?"), "'");
      EXPECT_TRUE(ids.insert(panel.value("id", -1)).second) << where << ": id used twice";
      if (panel.value("type", "") == "row") continue;
      ++query_panels;
      EXPECT_FALSE(panel.value("description", "").empty()) << where << ": no description";
      EXPECT_TRUE(IsDatasourceVariable(panel.value("datasource", nlohmann::json())))
          << where << ": datasource is not ${datasource}";
      const nlohmann::json& defaults = panel["fieldConfig"]["defaults"];
      EXPECT_FALSE(defaults.value("unit", "").empty()) << where << ": no unit";
      EXPECT_FALSE(defaults.value("noValue", "").empty())
          << where << ": no noValue text saying why the panel may be empty";
      const nlohmann::json targets = panel.value("targets", nlohmann::json::array());
      EXPECT_FALSE(targets.empty()) << where << ": no query";
      for (const nlohmann::json& target : targets) {
        EXPECT_FALSE(target.value("expr", "").empty()) << where << ": empty query";
        if (target.contains("datasource")) {
          EXPECT_TRUE(IsDatasourceVariable(target["datasource"])) << where;
        }
      }
    }
    EXPECT_GE(query_panels, 5u) << d.file;
  }
}

// A variable a person picks narrows every panel, or the panel's description says why it cannot
// ("Not filtered by $device: ..."): a panel that ignores a choice silently reads as if it obeyed.
TEST_F(Dashboards, EveryQueryHonoursEachVariableOrSaysWhyNot) {
  size_t honoured = 0;
  for (const Dashboard& d : dashboards_) {
    std::vector<std::string> variables;
    for (const nlohmann::json& v : d.json["templating"]["list"]) {
      const std::string name = v.value("name", "");
      if (name != "datasource") variables.push_back(name);  // the panels' own, checked above
    }
    for (const nlohmann::json& panel : PanelsOf(d)) {
      const std::string description = panel.value("description", "");
      for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
        const std::string expr = target.value("expr", "");
        for (const std::string& name : variables) {
          const bool used = absl::StrContains(expr, "$" + name) ||
                            absl::StrContains(expr, "${" + name);
          honoured += used ? 1 : 0;
          EXPECT_TRUE(used || absl::StrContains(description, "Not filtered by $" + name + ":"))
              << d.file << " panel '" << panel.value("title", "?") << "' ignores $" << name
              << " without saying why: " << expr;
        }
      }
    }
  }
  EXPECT_GT(honoured, 20u);
}

// Whether every divisor in expr is a parenthesised expression filtered by "> 0": a ratio over a
// zero (no polls, a knob at 0) is then absent instead of NaN or Inf.
bool DivisorsAreFilteredPositive(const std::string& expr) {
  for (size_t slash = expr.find(" / "); slash != std::string::npos;
       slash = expr.find(" / ", slash + 1)) {
    const size_t open = slash + 3;
    if (open >= expr.size() || expr[open] != '(') return false;
    int depth = 0;
    size_t close = open;
    for (; close < expr.size(); ++close) {
      if (expr[close] == '(') ++depth;
      if (expr[close] == ')' && --depth == 0) break;
    }
    if (close >= expr.size() || !absl::EndsWith(expr.substr(open, close - open), "> 0")) {
      return false;
    }
  }
  return true;
}

TEST_F(Dashboards, RatiosNeverDivideByZero) {
  size_t ratios = 0;
  for (const Dashboard& d : dashboards_) {
    for (const nlohmann::json& panel : PanelsOf(d)) {
      for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
        const std::string expr = target.value("expr", "");
        if (absl::StrContains(expr, " / ")) ++ratios;
        EXPECT_TRUE(DivisorsAreFilteredPositive(expr))
            << d.file << " panel '" << panel.value("title", "?") << "': " << expr;
      }
    }
  }
  EXPECT_GE(ratios, 4u);  // the check saw the dashboards' ratios
}

TEST(DashboardRatios, TheCheckTellsAFilteredDivisorFromABareOne) {
  EXPECT_TRUE(DivisorsAreFilteredPositive("a / (b > 0)"));
  EXPECT_TRUE(DivisorsAreFilteredPositive("sum(a) / (sum(rate(b[1m])) > 0)"));
  EXPECT_FALSE(DivisorsAreFilteredPositive("a / b"));
  EXPECT_FALSE(DivisorsAreFilteredPositive("a / (b + c)"));
  EXPECT_FALSE(DivisorsAreFilteredPositive("a / (b > 0) + c / d"));
}

TEST_F(Dashboards, RatesUseRateInterval) {
  for (const Dashboard& d : dashboards_) {
    for (const nlohmann::json& panel : PanelsOf(d)) {
      for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
        for (const std::string& range : RangeSelectors(target.value("expr", ""))) {
          EXPECT_EQ(range, "[$__rate_interval]")
              << d.file << " panel '" << panel.value("title", "?") << "'";
        }
      }
    }
    for (const nlohmann::json& a : d.json["annotations"].value("list", nlohmann::json::array())) {
      for (const std::string& range : RangeSelectors(a.value("expr", ""))) {
        EXPECT_EQ(range, "[$__rate_interval]") << d.file << " annotation " << a.value("name", "");
      }
    }
  }
}

// Grafana's variables as Grafana fills them in: the datasource is chosen apart, the rest are
// regexes in =~ matchers and the interval a duration.
std::string AsGrafanaSends(const std::string& expr) {
  return testing_support::ExpandVariables(expr, {{"__rate_interval", "1m"},
                                                 {"__interval", "15s"},
                                                 {"instance", ".*"},
                                                 {"device", ".*"},
                                                 {"knob", ".*"}});
}

TEST_F(Dashboards, PrometheusParsesEveryQuery) {
  ASSERT_EQ(access(kPromtool, X_OK), 0) << kPromtool << " missing: apt-get install prometheus";
  // promtool checks a rules file's expressions with Prometheus' parser; each query becomes one.
  nlohmann::json rules = nlohmann::json::array();
  size_t count = 0;
  for (const Dashboard& d : dashboards_) {
    for (const nlohmann::json& panel : PanelsOf(d)) {
      for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
        const std::string expr = AsGrafanaSends(target.value("expr", ""));
        EXPECT_EQ(expr.find('$'), std::string::npos) << "unknown variable in " << expr;
        rules.push_back({{"record", absl::StrCat("panel:query", ++count)}, {"expr", expr}});
      }
    }
    for (const nlohmann::json& a : d.json["annotations"].value("list", nlohmann::json::array())) {
      if (!a.contains("expr")) continue;
      rules.push_back(
          {{"record", absl::StrCat("panel:query", ++count)}, {"expr", AsGrafanaSends(a["expr"])}});
    }
  }
  ASSERT_GT(count, 20u);
  char path[] = "/tmp/nictune_dashboard_rules_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  // JSON is YAML, so the rules file needs no YAML writer.
  std::ofstream(path) << nlohmann::json{{"groups", {{{"name", "dashboards"}, {"rules", rules}}}}};
  absl::StatusOr<testing_support::ProgramOutput> check =
      testing_support::RunProgram({kPromtool, "check", "rules", path});
  std::remove(path);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->exit_code, 0) << check->out << check->err;
  EXPECT_THAT(check->out, ::testing::HasSubstr(absl::StrCat("SUCCESS: ", count, " rules found")));
}

}  // namespace
}  // namespace nictune
