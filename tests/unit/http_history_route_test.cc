// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/history over a real store in a temporary directory: points as stored, label
// filters, several series, the resolution the store chose, and 400/503 with their reasons.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/http/history_route.h"
#include "agent/http/router.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/temp_store.h"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

constexpr int64_t kT0Seconds = 1'700'000'040;  // divisible by 60: every resolution's bucket start
const absl::Time kT0 = absl::FromUnixSeconds(kT0Seconds);

class HistoryRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing_support::TempStore> opened =
        testing_support::TempStore::Open("nictune-history-route-");
    ASSERT_TRUE(opened.ok()) << opened.status();
    temp_.emplace(*std::move(opened));
    dir_ = temp_->dir.path();
    store_ = temp_->store.get();
    ASSERT_TRUE(AddHistoryRoute(router_, *store_).ok());
  }

  // Second i: processed i on cpu 0 and 1000 + i on cpu 1; dropped 0.5 * i on cpu 0.
  void AppendSeconds(int from, int to) {
    for (int i = from; i < to; ++i) {
      const double x = i;
      absl::StatusOr<store::AppendResult> appended = store_->AppendSamples(
          kT0 + absl::Seconds(i), {{"nictune_softnet_processed_total", {{"cpu", "0"}}, x},
                                   {"nictune_softnet_processed_total", {{"cpu", "1"}}, 1000 + x},
                                   {"nictune_softnet_dropped_total", {{"cpu", "0"}}, 0.5 * x}});
      ASSERT_TRUE(appended.ok()) << appended.status();
    }
  }

  Response Get(const std::string& query) {
    return router_.Dispatch(Request{.method = "GET", .path = "/api/v1/history", .query = query});
  }

  Json GetOk(const std::string& query) {
    const Response response = Get(query);
    EXPECT_EQ(response.status, 200) << response.body;
    return Json::parse(response.body, nullptr, false);
  }

  std::optional<testing_support::TempStore> temp_;
  std::string dir_;
  store::Store* store_ = nullptr;  // temp_'s
  Router router_;
};

std::string Range(int from, int to, const std::string& step) {
  return absl::StrCat("since=", kT0Seconds + from, "&until=", kT0Seconds + to, "&step=", step);
}

TEST_F(HistoryRouteTest, RawPointsOfOneLabelledSeries) {
  AppendSeconds(0, 30);
  const Json answer =
      GetOk("series=nictune_softnet_processed_total&label=cpu%3D0&" + Range(5, 9, "1s"));
  EXPECT_EQ(answer["resolution_s"], 1.0);
  EXPECT_EQ(answer["step_s"], 1.0);
  EXPECT_EQ(answer["since"], kT0Seconds + 5.0);
  ASSERT_EQ(answer["series"].size(), 1u);
  const Json& series = answer["series"][0];
  EXPECT_EQ(series["name"], "nictune_softnet_processed_total");
  EXPECT_EQ(series["labels"], (Json{{"cpu", "0"}}));
  ASSERT_EQ(series["points"].size(), 5u);  // since and until both included
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(series["points"][static_cast<size_t>(k)],
              Json::array({kT0Seconds + 5.0 + k, 5.0 + k}));
  }
}

TEST_F(HistoryRouteTest, WithoutLabelsEverySeriesOfTheNameAndSeveralNames) {
  AppendSeconds(0, 10);
  const Json answer = GetOk(
      "series=nictune_softnet_processed_total,nictune_softnet_dropped_total&" + Range(0, 9, "1s"));
  ASSERT_EQ(answer["series"].size(), 3u);
  double cpu1_last = 0;
  double dropped_last = 0;
  for (const Json& series : answer["series"]) {
    ASSERT_EQ(series["points"].size(), 10u);
    if (series["name"] == "nictune_softnet_dropped_total") {
      dropped_last = series["points"][9][1].get<double>();
    } else if (series["labels"]["cpu"] == "1") {
      cpu1_last = series["points"][9][1].get<double>();
    }
  }
  EXPECT_EQ(cpu1_last, 1009);
  EXPECT_EQ(dropped_last, 4.5);

  // A label no series carries matches nothing: an empty answer, not an error.
  const Json none =
      GetOk("series=nictune_softnet_processed_total&label=cpu=7&" + Range(0, 9, "1s"));
  EXPECT_TRUE(none["series"].empty());
}

TEST_F(HistoryRouteTest, CoarseStepIsAnsweredFromDownsampledMeans) {
  AppendSeconds(0, 180);
  for (int call = 0; call < 1000; ++call) {
    absl::StatusOr<store::MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(200));
    ASSERT_TRUE(report.ok()) << report.status();
    if (report->caught_up) break;
  }
  const Json answer =
      GetOk("series=nictune_softnet_processed_total&label=cpu=0&" + Range(0, 119, "10s"));
  EXPECT_EQ(answer["resolution_s"], 10.0);
  const Json& points = answer["series"][0]["points"];
  ASSERT_EQ(points.size(), 12u);
  EXPECT_EQ(points[3], Json::array({kT0Seconds + 30.0, 34.5}));  // mean of 30 .. 39
}

TEST_F(HistoryRouteTest, BadParametersAre400WithTheReason) {
  const struct {
    std::string query;
    std::string detail;
  } cases[] = {
      {"", "series: required"},
      {"series=a&label=cpu", "expected KEY=VALUE"},
      {"series=a&label=1cpu=0", "expected KEY=VALUE"},
      {"series=a&label=cpu=0&label=cpu=1", "label \"cpu\" is given more than once"},
      {"series=a&lable=cpu=0", "\"lable\" is unknown"},
      {"series=a&&since=1", "expected name=value"},
      {"series=a&since=tomorrow", "since=\"tomorrow\""},
      {"series=a&since=2000&until=1000", "is not before until"},
      {"series=a&since=0&until=100000&step=1s", "raise step or shorten the range"},
  };
  for (const auto& c : cases) {
    const Response response = Get(c.query);
    EXPECT_EQ(response.status, 400) << c.query;
    const Json error = Json::parse(response.body, nullptr, false);
    EXPECT_EQ(error["error"], "bad_request") << c.query;
    EXPECT_THAT(error["detail"].get<std::string>(), HasSubstr(c.detail)) << c.query;
    // The answer is to that request: its detail does not name it again.
    EXPECT_THAT(error["detail"].get<std::string>(), Not(HasSubstr("GET /api/v1/history")));
  }
}

TEST_F(HistoryRouteTest, AnUnknownSeriesIs404AndTheListNamesTheKnownOnes) {
  AppendSeconds(0, 2);
  const Response unknown = Get("series=nictune_softnet_processed_total,nictune_typo_total&" +
                               Range(0, 9, "1s"));
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  const Json error = Json::parse(unknown.body, nullptr, false);
  EXPECT_EQ(error["error"], "not_found");
  EXPECT_EQ(error["detail"],
            "no stored series is named nictune_typo_total (GET "
            "/api/v1/history/series lists them)");
  const Response list = router_.Dispatch(Request{.method = "GET", .path = kHistorySeriesPath});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(Json::parse(list.body)["series"],
            Json::array({"nictune_softnet_dropped_total", "nictune_softnet_processed_total"}));
}

TEST_F(HistoryRouteTest, StoreFailureIs503) {
  AppendSeconds(0, 10);
  // Wreck the database under the open store: every page, header included, becomes garbage.
  {
    const std::string path = dir_ + "/" + store::kDatabaseFileName;
    const auto size = std::filesystem::file_size(path);
    std::ofstream wreck(path, std::ios::binary | std::ios::in | std::ios::out);
    wreck << std::string(size, '\xA5');
  }
  std::filesystem::remove(dir_ + "/" + store::kDatabaseFileName + "-wal");
  const Response response = Get("series=nictune_softnet_processed_total&" + Range(0, 9, "1s"));
  EXPECT_EQ(response.status, 503) << response.body;
  const Json error = Json::parse(response.body, nullptr, false);
  EXPECT_EQ(error["error"], "store_unavailable");
  EXPECT_THAT(error["detail"].get<std::string>(),
              HasSubstr("history of nictune_softnet_processed_total"));
}

}  // namespace
}  // namespace nictune::http
