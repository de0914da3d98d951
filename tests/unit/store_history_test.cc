// SPDX-License-Identifier: Apache-2.0
// Append and query at each resolution: raw rows as appended, 10 s and 1 min rows as the means
// of what they cover, the resolution chosen by the range and step asked for, labels matched.
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;

// Divisible by 60 s, so buckets of every default resolution start on it.
const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

class StoreHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-store-history-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void OpenStore(const StoreOptions& options = {}) {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  // Second i gets value i on cpu 0 and 1000 + i on cpu 1.
  void AppendSeconds(int from, int to) {
    for (int i = from; i < to; ++i) {
      absl::StatusOr<AppendResult> appended = store_->AppendSamples(
          kT0 + absl::Seconds(i),
          {{"nictune_softnet_processed_total", {{"cpu", "0"}}, static_cast<double>(i)},
           {"nictune_softnet_processed_total", {{"cpu", "1"}}, 1000.0 + i}});
      ASSERT_TRUE(appended.ok()) << appended.status();
      ASSERT_EQ(appended->rows_written, 2);
    }
  }

  void MaintainUntilCaughtUp(absl::Time now) {
    for (int call = 0; call < 1000; ++call) {
      absl::StatusOr<MaintenanceReport> report = store_->Maintain(now);
      ASSERT_TRUE(report.ok()) << report.status();
      if (report->caught_up) return;
    }
    FAIL() << "maintenance did not catch up in 1000 calls";
  }

  HistoryResult Query(absl::Time since, absl::Time until, absl::Duration step,
                      Labels match = {{"cpu", "0"}}) {
    absl::StatusOr<HistoryResult> result = store_->QueryHistory(
        {"nictune_softnet_processed_total", std::move(match), since, until, step});
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : HistoryResult{};
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreHistoryTest, RawRowsComeBackAsAppended) {
  OpenStore();
  AppendSeconds(0, 30);
  HistoryResult result =
      Query(kT0 + absl::Seconds(5), kT0 + absl::Seconds(9), absl::ZeroDuration());
  EXPECT_EQ(result.resolution, absl::Seconds(1));
  ASSERT_EQ(result.series.size(), 1u);
  EXPECT_EQ(result.series[0].labels, (Labels{{"cpu", "0"}}));
  ASSERT_EQ(result.series[0].points.size(), 5u);  // since and until both included
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(result.series[0].points[static_cast<size_t>(k)].ts, kT0 + absl::Seconds(5 + k));
    EXPECT_EQ(result.series[0].points[static_cast<size_t>(k)].value, 5.0 + k);
  }
}

TEST_F(StoreHistoryTest, EachResolutionHoldsTheMeansOfWhatItCovers) {
  OpenStore();
  AppendSeconds(0, 180);
  MaintainUntilCaughtUp(kT0 + absl::Seconds(200));

  HistoryResult ten = Query(kT0, kT0 + absl::Seconds(119), absl::Seconds(10));
  EXPECT_EQ(ten.resolution, absl::Seconds(10));
  ASSERT_EQ(ten.series.size(), 1u);
  ASSERT_EQ(ten.series[0].points.size(), 12u);
  for (int k = 0; k < 12; ++k) {
    const HistoryPoint& p = ten.series[0].points[static_cast<size_t>(k)];
    EXPECT_EQ(p.ts, kT0 + absl::Seconds(10 * k));
    EXPECT_DOUBLE_EQ(p.value, 10 * k + 4.5);  // mean of 10k .. 10k+9
  }

  HistoryResult minute = Query(kT0, kT0 + absl::Seconds(179), absl::Minutes(1));
  EXPECT_EQ(minute.resolution, absl::Minutes(1));
  ASSERT_EQ(minute.series[0].points.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(minute.series[0].points[static_cast<size_t>(k)].value, 60 * k + 29.5);
  }

  // A step between resolutions: the 10 s rows averaged in threes.
  HistoryResult thirty = Query(kT0, kT0 + absl::Seconds(119), absl::Seconds(30));
  EXPECT_EQ(thirty.resolution, absl::Seconds(10));
  ASSERT_EQ(thirty.series[0].points.size(), 4u);
  EXPECT_DOUBLE_EQ(thirty.series[0].points[1].value, 30 + 14.5);
}

TEST_F(StoreHistoryTest, CoarseRowsWeighRawSamplesNotBuckets) {
  OpenStore();
  // Minute 0: ten samples of 0 in its first 10 s and a single 110 in its second.
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(store_->AppendSamples(kT0 + absl::Seconds(i), {{"nictune_x", {}, 0.0}}).ok());
  }
  ASSERT_TRUE(store_->AppendSamples(kT0 + absl::Seconds(15), {{"nictune_x", {}, 110.0}}).ok());
  MaintainUntilCaughtUp(kT0 + absl::Minutes(3));
  absl::StatusOr<HistoryResult> minute =
      store_->QueryHistory({"nictune_x", {}, kT0, kT0 + absl::Seconds(59), absl::Minutes(1)});
  ASSERT_TRUE(minute.ok()) << minute.status();
  ASSERT_EQ(minute->series.size(), 1u);
  ASSERT_EQ(minute->series[0].points.size(), 1u);
  // 110 / 11 samples, not (0 + 110) / 2 buckets.
  EXPECT_DOUBLE_EQ(minute->series[0].points[0].value, 10.0);
}

TEST_F(StoreHistoryTest, ARangeOlderThanRawRetentionIsAnsweredFromACoarserResolution) {
  StoreOptions options;
  options.resolutions[0].retention = absl::Minutes(2);
  OpenStore(options);
  AppendSeconds(0, 600);
  MaintainUntilCaughtUp(kT0 + absl::Seconds(610));

  // Raw rows of the first minutes are gone; the 10 s rows are not.
  HistoryResult old = Query(kT0, kT0 + absl::Seconds(59), absl::ZeroDuration());
  EXPECT_EQ(old.resolution, absl::Seconds(10));
  ASSERT_EQ(old.series[0].points.size(), 6u);
  EXPECT_DOUBLE_EQ(old.series[0].points[0].value, 4.5);

  // The last minute still has raw rows.
  HistoryResult recent =
      Query(kT0 + absl::Seconds(540), kT0 + absl::Seconds(599), absl::ZeroDuration());
  EXPECT_EQ(recent.resolution, absl::Seconds(1));
  EXPECT_EQ(recent.series[0].points.size(), 60u);
}

TEST_F(StoreHistoryTest, AYoungStoreAnswersARangeBeforeItsFirstSampleAtTheStepAskedFor) {
  // Three minutes of samples that start mid-minute: the 10 s and 1 min buckets are stamped before
  // the first raw sample, which must not make the raw and 10 s rows look too short to cover it.
  OpenStore();
  AppendSeconds(37, 217);
  MaintainUntilCaughtUp(kT0 + absl::Seconds(230));
  const absl::Time now = kT0 + absl::Seconds(217);
  HistoryResult stepped = Query(now - absl::Seconds(600), now, absl::Seconds(10));
  EXPECT_EQ(stepped.resolution, absl::Seconds(10));
  ASSERT_EQ(stepped.series.size(), 1u);
  EXPECT_GE(stepped.series[0].points.size(), 17u);
  HistoryResult finest = Query(now - absl::Seconds(600), now, absl::ZeroDuration());
  EXPECT_EQ(finest.resolution, absl::Seconds(1));
  ASSERT_EQ(finest.series.size(), 1u);
  EXPECT_EQ(finest.series[0].points.size(), 180u);
}

TEST_F(StoreHistoryTest, LabelMatchersSelectSeries) {
  OpenStore();
  AppendSeconds(0, 3);
  HistoryResult one = Query(kT0, kT0 + absl::Seconds(2), absl::ZeroDuration(), {{"cpu", "1"}});
  ASSERT_EQ(one.series.size(), 1u);
  EXPECT_EQ(one.series[0].points[0].value, 1000.0);
  HistoryResult both = Query(kT0, kT0 + absl::Seconds(2), absl::ZeroDuration(), {});
  EXPECT_EQ(both.series.size(), 2u);
  HistoryResult none = Query(kT0, kT0 + absl::Seconds(2), absl::ZeroDuration(), {{"cpu", "7"}});
  EXPECT_TRUE(none.series.empty());
}

TEST_F(StoreHistoryTest, SeriesSurviveReopenWithoutDuplicates) {
  OpenStore();
  AppendSeconds(0, 2);
  store_.reset();
  OpenStore();
  absl::StatusOr<AppendResult> appended = store_->AppendSamples(
      kT0 + absl::Seconds(2), {{"nictune_softnet_processed_total", {{"cpu", "0"}}, 2.0}});
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(appended->new_series, 0);
  EXPECT_EQ(Query(kT0, kT0 + absl::Seconds(2), absl::ZeroDuration()).series[0].points.size(), 3u);
}

TEST_F(StoreHistoryTest, BadInputIsRefusedWithTheReasonAndNothingOfTheWindowIsStored) {
  OpenStore();
  absl::StatusOr<AppendResult> appended =
      store_->AppendSamples(kT0, {{"nictune_ok", {}, 1.0}, {"bad name", {}, 2.0}});
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(appended.status().message(), HasSubstr("\"bad name\""));
  absl::StatusOr<HistoryResult> ok =
      store_->QueryHistory({"nictune_ok", {}, kT0, kT0 + absl::Seconds(1)});
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->series.empty());  // the good sample went with the bad one, and so did its series

  appended = store_->AppendSamples(kT0, {{"nictune_ok", {}, std::nan("")}, {"nictune_ok2", {}, 1}});
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(appended->skipped_not_finite, 1);
  EXPECT_EQ(appended->rows_written, 1);

  absl::StatusOr<HistoryResult> inverted =
      store_->QueryHistory({"nictune_ok2", {}, kT0, kT0 - absl::Seconds(1)});
  EXPECT_EQ(inverted.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<HistoryResult> too_many =
      store_->QueryHistory({"nictune_ok2", {}, kT0, kT0 + absl::Hours(24), absl::Seconds(1)});
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_many.status().message(), HasSubstr("raise step"));
  absl::StatusOr<StoreStats> stats = store_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_THAT(stats->last_error, HasSubstr("raise step"));
}

}  // namespace
}  // namespace nictune::store
