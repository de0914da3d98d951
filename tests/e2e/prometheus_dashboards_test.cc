// SPDX-License-Identifier: Apache-2.0
// End to end through a real Prometheus server: the built nictuned on a free loopback port with a
// temporary state directory and every probe attached whole, /usr/bin/prometheus scraping it
// every second and loading deploy/prometheus/nictune_rules.yml, and a UDP flow between two
// namespaces whose slow receiver (a 16 KiB buffer read 8 datagrams every 3 ms, fed 4000
// datagrams/s) overflows its socket, so the per-socket and drop panels get data; the receiving veth
// polls in its NAPI thread, for the pollers' panel. While the flow runs, every query of every panel
// of every dashboard in dashboards/ is run at one instant through /api/v1/query, with the template
// variables resolved through Prometheus as Grafana resolves them (the host is this agent, the
// device the receiving veth) and $__rate_interval at 15 s. Each must parse and return a sample;
// the one excuse is a query whose empty families are all in dashboards/metrics_planned.txt and
// absent from the agent's live exposition (printed as "not fed"; the excuse ends by itself when
// the agent exports the family), and the change panels, since recommend mode changes nothing.
// Then every recording and alerting rule must have evaluated with health "ok", and the socket
// drops recording rule must hold a series.
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"
#include "agent/procfs/read_file.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/dashboard_queries.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/prometheus_server.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::ProgramOutput;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
const std::string kRepo = testing_support::FixturesDir() + "/../../..";
// Short test windows: 15 scrapes at 1 s, where Grafana would give 4 x the scrape interval.
constexpr char kRateInterval[] = "15s";
constexpr absl::Duration kTraffic = absl::Seconds(28);
// When the queries run: far enough into the flow for a full rate window of it.
constexpr absl::Duration kQueryAfter = absl::Seconds(17);
// The panels are queried at least this long before the flow ends, so the rate panels see it.
constexpr absl::Duration kTruesizeWaitMargin = absl::Seconds(5);

// Panels of changes need the agent to change a knob; this test runs it in recommend mode, which
// never does, so they are listed as not fed instead of failing.
constexpr char kNeedsAChange[] = "nictune_changes_total";

using Families = std::set<std::string>;

// "# TYPE name type" lines of an exposition.
Families ExposedFamilies(absl::string_view exposition) {
  Families families;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (!absl::ConsumePrefix(&line, "# TYPE ")) continue;
    families.insert(std::string(line.substr(0, line.find(' '))));
  }
  return families;
}

// "name type" lines of dashboards/metrics_planned.txt ('#' starts a comment).
Families PlannedFamilies(absl::string_view list) {
  Families families;
  for (absl::string_view line : absl::StrSplit(list, '\n')) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (fields.size() == 2) families.insert(fields[0]);
  }
  return families;
}

// The nictune_* metric names a PromQL expression reads; recorded series (with ':') are not
// families and are left out.
Families FamiliesIn(absl::string_view expr) {
  Families names;
  auto is_name_char = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  };
  for (size_t at = expr.find("nictune_"); at != absl::string_view::npos;
       at = expr.find("nictune_", at + 1)) {
    if (at > 0 && is_name_char(expr[at - 1])) continue;
    size_t end = at;
    while (end < expr.size() && is_name_char(expr[end])) ++end;
    const absl::string_view name = expr.substr(at, end - at);
    if (!absl::StrContains(name, ':')) names.insert(std::string(name));
  }
  return names;
}

// The families of `expr` the agent cannot feed yet: planned, and not in the live exposition.
// A histogram's series (_bucket, _sum, _count) count as their family.
std::vector<std::string> UnfedFamilies(absl::string_view expr, const Families& planned,
                                       const Families& exposed) {
  std::vector<std::string> unfed;
  for (const std::string& name : FamiliesIn(expr)) {
    std::string family = name;
    for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
      if (!planned.contains(family) && absl::EndsWith(family, suffix)) {
        family.resize(family.size() - suffix.size());
      }
    }
    if (planned.contains(family) && !exposed.contains(family)) unfed.push_back(family);
  }
  return unfed;
}

// The exposition's lines of what each hook's probes saw, to tell an empty panel's cause.
std::string ProbeLines(absl::string_view exposition) {
  std::string lines;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    for (const char* family : {metrics::family::kProbeCoverageRatio,
                               metrics::family::kProbeEventsTotal,
                               metrics::family::kProbeSlotsTotal}) {
      if (absl::StartsWith(line, family)) absl::StrAppend(&lines, "  ", line, "\n");
    }
  }
  return lines;
}

size_t SeriesCount(const nlohmann::json& data) {
  return data.contains("result") && data["result"].is_array() ? data["result"].size() : 0;
}

// The dashboards shipped in dashboards/, by file name.
std::vector<std::filesystem::path> DashboardFiles() {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(kRepo + "/dashboards", error)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Waits until GET /metrics answers 200 with a first sample in it.
absl::Status WaitForMetrics(uint16_t port, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string last = "no reply";
  while (absl::Now() < deadline) {
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(2));
    if (reply.ok() && reply->status == 200 &&
        absl::StrContains(reply->body, "nictune_samples_total ")) {
      return absl::OkStatus();
    }
    last = reply.ok() ? absl::StrCat("HTTP ", reply->status) : reply.status().ToString();
    absl::SleepFor(absl::Milliseconds(200));
  }
  return absl::DeadlineExceededError(absl::StrCat("nictuned /metrics on 127.0.0.1:", port,
                                                  " not serving samples within ",
                                                  absl::FormatDuration(timeout), ": ", last));
}

// Waits until /metrics has a sample of `family`, until `deadline`.
absl::Status WaitForFamily(uint16_t port, absl::string_view family, absl::Time deadline) {
  const std::string sample_prefix = absl::StrCat("\n", family, "{");
  while (absl::Now() < deadline) {
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(2));
    if (reply.ok() && absl::StrContains(reply->body, sample_prefix)) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(500));
  }
  return absl::DeadlineExceededError(
      absl::StrCat(family, " not on /metrics while the flow ran: the per-packet truesize hook "
                           "had no slot"));
}

struct RuleReport {
  std::string group;
  std::string name;
  std::string type;  // "recording" or "alerting"
  std::string query;
  std::string health;
  std::string last_error;
  absl::Time last_evaluation = absl::InfinitePast();  // Go's zero time until the group first runs
};

absl::StatusOr<std::vector<RuleReport>> ReadRules(const testing_support::PrometheusServer& server) {
  absl::StatusOr<nlohmann::json> data = server.Api("rules");
  if (!data.ok()) return data.status();
  std::vector<RuleReport> rules;
  if (!data->contains("groups")) return rules;
  for (const nlohmann::json& group : (*data)["groups"]) {
    for (const nlohmann::json& rule : group["rules"]) {
      absl::Time last_evaluation;
      std::string parse_error;
      if (!absl::ParseTime(absl::RFC3339_full, rule.value("lastEvaluation", ""), &last_evaluation,
                           &parse_error) ||
          absl::StartsWith(rule.value("lastEvaluation", ""), "0001")) {
        last_evaluation = absl::InfinitePast();
      }
      rules.push_back(
          {.group = group.value("name", ""),
           .name = rule.value("name", ""),
           .type = rule.value("type", ""),
           .query = rule.value("query", ""),
           .health = rule.value("health", ""),
           .last_error = rule.value("lastError", ""),
           .last_evaluation = last_evaluation});
    }
  }
  return rules;
}

class PrometheusDashboardsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
    if (!std::filesystem::exists(testing_support::kPrometheusBinary)) {
      GTEST_SKIP() << testing_support::kPrometheusBinary
                   << " is missing: install the Debian package prometheus (deploy/bootstrap.sh "
                      "does)";
    }
  }
};

TEST_F(PrometheusDashboardsTest, EveryPanelQueryReturnsDataAndEveryRuleEvaluates) {
  const std::vector<std::filesystem::path> dashboard_files = DashboardFiles();
  ASSERT_FALSE(dashboard_files.empty()) << "no dashboards under " << kRepo << "/dashboards";
  std::map<std::string, testing_support::Dashboard> dashboards;
  for (const auto& file : dashboard_files) {
    absl::StatusOr<testing_support::Dashboard> dashboard = testing_support::ReadDashboard(file);
    ASSERT_TRUE(dashboard.ok()) << dashboard.status();
    ASSERT_FALSE(dashboard->panel_queries.empty()) << file;
    dashboards[file.filename().string()] = *std::move(dashboard);
  }
  absl::StatusOr<std::string> planned_list =
      procfs::ReadFile(kRepo + "/dashboards/metrics_planned.txt");
  ASSERT_TRUE(planned_list.ok()) << planned_list.status();
  const Families planned = PlannedFamilies(*planned_list);

  absl::StatusOr<testing_support::TempDir> dir = testing_support::TempDir::Create("nictune_e2e_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  // The receiving veth polls in its NAPI thread, so that the pollers' panel has one to show.
  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({.threaded_napi_on_b = true});
  ASSERT_TRUE(hosts.ok()) << hosts.status();

  absl::StatusOr<uint16_t> agent_port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(agent_port.ok()) << agent_port.status();
  absl::StatusOr<testing_support::BackgroundProgram> agent =
      testing_support::BackgroundProgram::Start({kNictuned,
                                                 absl::StrCat("--listen=127.0.0.1:", *agent_port),
                                                 "--state_dir=" + dir->path() + "/state",
                                                 "--interval=500ms", "--window=2s", "--socket=",
                                                 // Every panel must have data at one instant: a
                                                 // hook the default budget samples can go a rate
                                                 // window without a slot on a loaded machine (CI
                                                 // saw the NAPI panels empty so). Sampling has its
                                                 // own tests (tests/bpf/probe_budget_test.cc).
                                                 "--probe_budget=unlimited"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  const absl::Status serving = WaitForMetrics(*agent_port, absl::Seconds(20));
  ASSERT_TRUE(serving.ok()) << serving << "\nnictuned: "
                            << agent->Wait(absl::Seconds(2)).value_or(ProgramOutput{}).err;

  absl::StatusOr<std::unique_ptr<testing_support::PrometheusServer>> prometheus =
      testing_support::PrometheusServer::Start(
          {.directory = dir->path(),
           .job_name = "nictune",  // the job of deploy/prometheus/prometheus.yml and the alerts
           .target_port = *agent_port,
           .rule_files = {kRepo + "/deploy/prometheus/nictune_rules.yml"}},
          absl::Seconds(20));
  ASSERT_TRUE(prometheus.ok()) << prometheus.status();
  const testing_support::PrometheusServer& server = **prometheus;

  absl::StatusOr<testing_support::UdpFlow> flow = testing_support::UdpFlow::Open(
      **hosts,
      {.rcvbuf_bytes = 16384,
       .batch = 8,
       .drain_gap = absl::Milliseconds(3),
       .run_time = kTraffic + absl::Seconds(1)},
      {.packets = static_cast<uint64_t>(4000 * absl::ToInt64Seconds(kTraffic)),
       .payload_bytes = 128,
       .packets_per_second = 4000,
       .max_duration = kTraffic});
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<testing_support::UdpFlowResult> traffic =
      absl::UnavailableError("the flow has not finished");
  const absl::Time traffic_start = absl::Now();
  {
    // Joined before the flow and the hosts go, also when an assertion below returns early.
    std::jthread sending([&] { traffic = flow->Run(); });

    absl::SleepFor(traffic_start + kQueryAfter - absl::Now());
    // Per-socket truesize comes from a hook the probe budget slots under a flood: the gauge is
    // there from the first slot on, which may come later than kQueryAfter. Wait for it while the
    // flow still runs, then for two scrapes to carry it.
    const absl::Status sampled =
        WaitForFamily(*agent_port, metrics::family::kSocketTruesizeMeanBytes,
                      traffic_start + kTraffic - kTruesizeWaitMargin);
    EXPECT_TRUE(sampled.ok()) << sampled;
    if (sampled.ok()) absl::SleepFor(absl::Seconds(2));
    const absl::Time at = absl::Now();
    absl::StatusOr<testing_support::HttpReply> exposition =
        testing_support::HttpGetLoopback(*agent_port, "/metrics", absl::Seconds(5));
    ASSERT_TRUE(exposition.ok()) << exposition.status();
    const Families exposed = ExposedFamilies(exposition->body);

    // Several scrapes of the agent, all of them up, inside the rate window the queries use.
    absl::StatusOr<nlohmann::json> scrapes =
        server.Query(absl::StrCat("sum_over_time(up{job=\"nictune\",instance=\"", server.target(),
                                  "\"}[", kRateInterval, "])"),
                     at);
    ASSERT_TRUE(scrapes.ok()) << scrapes.status();
    ASSERT_EQ(SeriesCount(*scrapes), 1u) << scrapes->dump();
    const double up_scrapes = std::stod((*scrapes)["result"][0]["value"][1].get<std::string>());
    EXPECT_GE(up_scrapes, 10) << "successful scrapes in the last " << kRateInterval;

    std::vector<std::string> not_fed;
    for (const auto& [file, dashboard] : dashboards) {
      std::map<std::string, std::string> values = {{"__rate_interval", kRateInterval}};
      // The host is this agent. The veth end whose NAPI instance receives the flow lives in a test
      // namespace, not the agent's, so the agent counts it under the one label of every other
      // namespace.
      const std::map<std::string, std::string> wanted = {
          {"instance", server.target()}, {"device", metrics::kOtherNamespacesDevice}};
      for (const testing_support::DashboardVariable& variable : dashboard.variables) {
        absl::StatusOr<std::vector<std::string>> listed =
            server.LabelValues(testing_support::ExpandVariables(variable.selector, values),
                               variable.label, at - absl::Minutes(1), at);
        ASSERT_TRUE(listed.ok()) << file << " $" << variable.name << ": " << listed.status();
        if (const auto it = wanted.find(variable.name); it != wanted.end()) {
          EXPECT_NE(std::find(listed->begin(), listed->end(), it->second), listed->end())
              << file << " $" << variable.name << " lists [" << absl::StrJoin(*listed, ", ")
              << "], not " << it->second;
          values[variable.name] = it->second;
        } else if (variable.include_all) {
          values[variable.name] = variable.all_value;
        } else {
          ASSERT_FALSE(listed->empty()) << file << " $" << variable.name << " lists nothing";
          values[variable.name] = listed->front();
        }
      }

      for (const testing_support::DashboardQuery& query : dashboard.panel_queries) {
        const std::string where = absl::StrCat(file, " \"", query.panel, "\" ", query.ref_id);
        const std::string expr = testing_support::ExpandVariables(query.expr, values);
        absl::StatusOr<nlohmann::json> result = server.Query(expr, at);
        if (!result.ok()) {
          ADD_FAILURE() << where << ": Prometheus refused the query: " << result.status() << "\n  "
                        << expr;
          continue;
        }
        const size_t series = SeriesCount(*result);
        std::cout << "  " << where << ": " << series << " series\n";
        if (series > 0) continue;
        const std::vector<std::string> unfed = UnfedFamilies(expr, planned, exposed);
        if (absl::StrContains(expr, kNeedsAChange)) {
          not_fed.push_back(absl::StrCat(where,
                                         ": needs a change, and the agent runs in "
                                         "recommend mode here (no apply driven yet)"));
        } else if (unfed.empty()) {
          ADD_FAILURE() << where << ": empty panel\n  " << expr << "\nthe agent's hooks:\n"
                        << ProbeLines(exposition->body);
        } else {
          not_fed.push_back(
              absl::StrCat(where, ": ", absl::StrJoin(unfed, ", "), " planned, not exported yet"));
        }
      }
      // Annotations need changes to show anything; their PromQL must still parse and run.
      for (const testing_support::DashboardQuery& query : dashboard.annotation_queries) {
        const std::string expr = testing_support::ExpandVariables(query.expr, values);
        absl::StatusOr<nlohmann::json> result = server.Query(expr, at);
        EXPECT_TRUE(result.ok()) << file << " annotation \"" << query.panel
                                 << "\": " << result.status() << "\n  " << expr;
        if (result.ok()) {
          std::cout << "  " << file << " annotation \"" << query.panel
                    << "\": " << SeriesCount(*result) << " series\n";
        }
      }
    }
    std::cout << "Not fed (" << not_fed.size() << "):\n";
    for (const std::string& line : not_fed) std::cout << "  " << line << "\n";
    RecordProperty("not_fed", absl::StrJoin(not_fed, "; "));

    // Every rule has run since the panels above had data (the recording group runs every 30 s)
    // and none failed. A run before that can see a single scrape, where rate() is empty.
    const auto evaluated_since_panels = [at](const RuleReport& rule) {
      return rule.last_evaluation > at;
    };
    absl::StatusOr<std::vector<RuleReport>> rules = ReadRules(server);
    const absl::Time rules_deadline = absl::Now() + absl::Seconds(40);
    while (rules.ok() && absl::Now() < rules_deadline &&
           (rules->empty() ||
            !std::all_of(rules->begin(), rules->end(), evaluated_since_panels))) {
      absl::SleepFor(absl::Milliseconds(500));
      rules = ReadRules(server);
    }
    ASSERT_TRUE(rules.ok()) << rules.status();
    ASSERT_FALSE(rules->empty()) << "Prometheus loaded no rules";
    // The rules API shows an evaluation before its samples are committed to the head.
    absl::SleepFor(absl::Seconds(2));
    const absl::Time rules_evaluated = absl::Now();
    int recording = 0;
    int alerting = 0;
    for (const RuleReport& rule : *rules) {
      EXPECT_TRUE(evaluated_since_panels(rule))
          << rule.group << "/" << rule.name << " last evaluated at "
          << absl::FormatTime(rule.last_evaluation) << ", not after the panels had data";
      EXPECT_EQ(rule.health, "ok") << rule.group << "/" << rule.name << ": " << rule.last_error;
      if (rule.type == "alerting") ++alerting;
      if (rule.type != "recording") continue;
      ++recording;
      absl::StatusOr<nlohmann::json> recorded = server.Query(rule.name, rules_evaluated);
      ASSERT_TRUE(recorded.ok()) << recorded.status();
      // Empty can be right (no knob deviates); the drops this test causes must show.
      std::cout << "  rule " << rule.name << ": " << SeriesCount(*recorded) << " series\n";
      if (rule.name == "instance:nictune_socket_drops:rate5m") {
        EXPECT_EQ(SeriesCount(*recorded), 1u) << rule.query;
      }
    }
    EXPECT_GT(recording, 0);
    EXPECT_GT(alerting, 0);
    std::cout << "Rules: " << recording << " recording, " << alerting << " alerting, ok\n";
  }

  // The drops the panels showed were real: the receiver's socket overflowed.
  ASSERT_TRUE(traffic.ok()) << traffic.status();
  EXPECT_GT(traffic->received.received, 0u);
  EXPECT_GT(traffic->received.kernel_drops, 0u);
  std::cout << "Flow: sent " << traffic->sent.sent << ", received " << traffic->received.received
            << ", socket drops " << traffic->received.kernel_drops << "; test took "
            << absl::FormatDuration(absl::Now() - traffic_start) << " after the flow started\n";

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<testing_support::ProgramOutput> exited = agent->Wait(absl::Seconds(10));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
}

}  // namespace
}  // namespace nictune
