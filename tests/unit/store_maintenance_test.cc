// SPDX-License-Identifier: Apache-2.0
// Maintenance: retention deletes what is old and nothing the next resolution has not averaged,
// every transaction touches at most maintenance_batch_rows rows, and the disk cap evicts the
// oldest raw rows first while the coarse history survives.
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

class StoreMaintenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-store-maintenance-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void OpenStore(const StoreOptions& options) {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  // `series` series at each of the seconds [from, to), value = second.
  void Append(int from, int to, int series) {
    for (int i = from; i < to; ++i) {
      std::vector<SeriesSample> samples;
      for (int s = 0; s < series; ++s) {
        samples.push_back({"nictune_test", {{"n", std::to_string(s)}}, static_cast<double>(i)});
      }
      absl::StatusOr<AppendResult> appended =
          store_->AppendSamples(kT0 + absl::Seconds(i), samples);
      ASSERT_TRUE(appended.ok()) << appended.status();
    }
  }

  std::map<std::string, int64_t> Rows() {
    absl::StatusOr<StoreStats> stats = store_->Stats();
    EXPECT_TRUE(stats.ok()) << stats.status();
    std::map<std::string, int64_t> rows;
    if (stats.ok()) {
      for (const TableRows& t : stats->rows) rows[t.table] = t.rows;
    }
    return rows;
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
};

// Raw 1 s rows kept 30 s, averaged into 10 s buckets kept 2 min.
StoreOptions RawFor30sThen10sFor2Min() {
  StoreOptions options;
  options.resolutions = {{absl::Seconds(1), absl::Seconds(30)},
                         {absl::Seconds(10), absl::Minutes(2)}};
  return options;
}

TEST_F(StoreMaintenanceTest, RetentionDeletesInBatchesOfAtMostTheConfiguredRows) {
  StoreOptions options;
  options.resolutions = {{absl::Seconds(1), absl::Minutes(1)}};
  options.maintenance_batch_rows = 100;
  options.maintenance_batches_per_call = 1;
  OpenStore(options);
  Append(0, 10, 103);  // 1030 rows, none a whole number of batches
  ASSERT_EQ(Rows()["samples 1s"], 1030);

  const absl::Time now = kT0 + absl::Hours(1);
  int64_t left = 1030;
  for (int call = 0; call < 10; ++call) {
    absl::StatusOr<MaintenanceReport> report = store_->Maintain(now);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->batches, 1);
    EXPECT_EQ(report->rows_expired, 100) << "call " << call;
    left -= 100;
    EXPECT_EQ(Rows()["samples 1s"], left);
  }
  absl::StatusOr<MaintenanceReport> last = store_->Maintain(now);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->rows_expired, 30);
  EXPECT_EQ(Rows()["samples 1s"], 0);
  last = store_->Maintain(now);
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->caught_up);
  EXPECT_EQ(last->batches, 0);
}

TEST_F(StoreMaintenanceTest, RetentionKeepsRowsInsideTheWindowAndRowsNotYetAveraged) {
  OpenStore(RawFor30sThen10sFor2Min());
  Append(0, 100, 3);
  absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(101));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->caught_up);
  std::map<std::string, int64_t> rows = Rows();
  // Raw rows before second 71 (now - 30 s) are gone, the 29 seconds after it are kept.
  EXPECT_EQ(rows["samples 1s"], (100 - 71) * 3);
  // 10 s buckets 0 .. 90 are complete (a bucket waits one raw step past its end).
  EXPECT_EQ(rows["samples 10s"], 10 * 3);

  // At second 200 no raw row is left, nor any 10 s bucket before now - 2 min = second 80.
  report = store_->Maintain(kT0 + absl::Seconds(200));
  ASSERT_TRUE(report.ok()) << report.status();
  rows = Rows();
  EXPECT_EQ(rows["samples 1s"], 0);
  EXPECT_EQ(rows["samples 10s"], 2 * 3);  // buckets 80 and 90
}

TEST_F(StoreMaintenanceTest, OnceCaughtUpRetentionWaitsForTheFinestDownsampledStep) {
  OpenStore(RawFor30sThen10sFor2Min());
  Append(0, 40, 3);
  absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(41));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->caught_up);
  EXPECT_EQ(Rows()["samples 1s"], (40 - 11) * 3);

  // Four seconds on, seconds 11 .. 14 are past retention, but nothing is looked at for 10 s.
  report = store_->Maintain(kT0 + absl::Seconds(45));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->caught_up);
  EXPECT_EQ(report->batches, 0);
  EXPECT_EQ(Rows()["samples 1s"], (40 - 11) * 3);

  // Ten seconds after catching up, everything before second 21 goes.
  report = store_->Maintain(kT0 + absl::Seconds(51));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->caught_up);
  EXPECT_GT(report->rows_expired, 0);
  EXPECT_EQ(Rows()["samples 1s"], (40 - 21) * 3);
}

TEST_F(StoreMaintenanceTest, AClockSteppedBackEndsTheRest) {
  OpenStore(RawFor30sThen10sFor2Min());
  // Caught up while the clock ran 1000 s ahead; then it is set right and samples go on.
  absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(1000));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->caught_up);
  Append(40, 80, 3);
  report = store_->Maintain(kT0 + absl::Seconds(81));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->rows_expired, 0) << "resting until the clock reaches its old reading again";
  EXPECT_EQ(Rows()["samples 1s"], (80 - 51) * 3);
}

TEST_F(StoreMaintenanceTest, DownsamplingReadsAtMostABatchPerTransaction) {
  StoreOptions options;
  options.maintenance_batch_rows = 100;
  options.maintenance_batches_per_call = 1;
  OpenStore(options);
  Append(0, 20, 45);  // 10 timestamps per 10 s bucket: 10 series per batch
  int64_t downsampled = 0;
  for (int call = 0; call < 100; ++call) {
    absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(40));
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_LE(report->rows_downsampled, 10) << "call " << call;
    downsampled += report->rows_downsampled;
    if (report->caught_up) break;
  }
  EXPECT_EQ(downsampled, 2 * 45);
  EXPECT_EQ(Rows()["samples 10s"], 2 * 45);
}

TEST_F(StoreMaintenanceTest, TheDiskCapEvictsOldestRawRowsFirstAndKeepsCoarseHistory) {
  StoreOptions options;
  options.disk_cap_bytes = 1 << 20;
  OpenStore(options);
  // 100 series for 20 minutes is about 4 MiB of raw rows; the sampling loop maintains each second.
  constexpr int kSeconds = 1200;
  for (int i = 0; i < kSeconds; ++i) {
    Append(i, i + 1, 100);
    absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(i + 1));
    ASSERT_TRUE(report.ok()) << report.status();
  }
  absl::StatusOr<StoreStats> stats = store_->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_LE(stats->used_bytes, options.disk_cap_bytes);
  std::map<std::string, int64_t> rows;
  for (const TableRows& t : stats->rows) rows[t.table] = t.rows;
  EXPECT_LT(rows["samples 1s"], kSeconds * 100 / 2) << "raw rows must have been evicted";
  EXPECT_GT(rows["samples 1s"], 0);

  // The newest raw rows are there, the oldest are not, and the oldest time is still described
  // by 10 s means.
  absl::StatusOr<HistoryResult> recent = store_->QueryHistory({"nictune_test",
                                                               {{"n", "7"}},
                                                               kT0 + absl::Seconds(kSeconds - 10),
                                                               kT0 + absl::Seconds(kSeconds - 1),
                                                               absl::Seconds(1)});
  ASSERT_TRUE(recent.ok()) << recent.status();
  EXPECT_EQ(recent->resolution, absl::Seconds(1));
  ASSERT_EQ(recent->series.size(), 1u);
  EXPECT_EQ(recent->series[0].points.size(), 10u);

  absl::StatusOr<HistoryResult> oldest = store_->QueryHistory(
      {"nictune_test", {{"n", "7"}}, kT0, kT0 + absl::Seconds(59), absl::ZeroDuration()});
  ASSERT_TRUE(oldest.ok()) << oldest.status();
  EXPECT_EQ(oldest->resolution, absl::Seconds(10));
  ASSERT_EQ(oldest->series.size(), 1u);
  ASSERT_EQ(oldest->series[0].points.size(), 6u);
  EXPECT_DOUBLE_EQ(oldest->series[0].points[0].value, 4.5);
}

TEST_F(StoreMaintenanceTest, RowsOfAResolutionNoLongerConfiguredAreDropped) {
  OpenStore(StoreOptions{});
  Append(0, 100, 2);
  ASSERT_TRUE(store_->Maintain(kT0 + absl::Seconds(101)).ok());
  store_.reset();
  StoreOptions changed;
  changed.resolutions = {{absl::Seconds(1), absl::Hours(1)}, {absl::Seconds(20), absl::Hours(1)}};
  OpenStore(changed);
  absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Seconds(101));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->caught_up);
  std::map<std::string, int64_t> rows = Rows();
  EXPECT_EQ(rows["samples 1s"], 200);
  EXPECT_EQ(rows["samples 20s"], 5 * 2);  // buckets 0 .. 80: 80 ends at 100, plus 1 s <= 101
}

TEST_F(StoreMaintenanceTest, RecordsExpire) {
  StoreOptions options;
  options.record_retention = absl::Hours(1);
  OpenStore(options);
  ASSERT_TRUE(store_->AppendEvent({kT0, "info", "old"}).ok());
  ASSERT_TRUE(store_->AppendEvent({kT0 + absl::Hours(2), "info", "new"}).ok());
  ASSERT_TRUE(
      store_->AppendRecommendations({{kT0, "rx_usecs", "device", "eth9", 8, 50, "{}"}}).ok());
  absl::StatusOr<MaintenanceReport> report = store_->Maintain(kT0 + absl::Minutes(150));
  ASSERT_TRUE(report.ok()) << report.status();
  std::map<std::string, int64_t> rows = Rows();
  EXPECT_EQ(rows["events"], 1);
  EXPECT_EQ(rows["recommendations"], 0);
}

}  // namespace
}  // namespace nictune::store
