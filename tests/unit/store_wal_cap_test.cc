// SPDX-License-Identifier: Apache-2.0
// A long reader cannot grow the WAL past its cap. Another connection holds a read snapshot open
// (as an operator's sqlite3 shell or a backup would) while windows of samples are appended: the
// WAL file stays within its cap plus one window, the windows over it are refused as
// ResourceExhausted naming the WAL, and once the reader ends the next append empties the WAL and
// succeeds. (The change journal has a file of its own, which no history reader can hold up.) The
// store's own reader, querying back to back, never holds a checkpoint off: no append is refused and
// the WAL stays bounded.
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/store/store.h"
#include "agent/store/wal_cap.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);
constexpr int64_t kCap = int64_t{1} << 20;
constexpr int kSeries = 400;  // ~100 KiB of WAL per window: the cap is some ten windows

std::vector<SeriesSample> Window(int index) {
  std::vector<SeriesSample> samples;
  for (int s = 0; s < kSeries; ++s) {
    samples.push_back({"nictune_test", {{"n", absl::StrCat(s)}}, static_cast<double>(index + s)});
  }
  return samples;
}

// A connection of its own with one read transaction open: its snapshot pins every WAL frame
// written after it began.
class LongReader {
 public:
  explicit LongReader(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, "SELECT count(*) FROM samples", -1, &statement, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW);
    sqlite3_finalize(statement);
  }
  LongReader(const LongReader&) = delete;
  LongReader& operator=(const LongReader&) = delete;
  ~LongReader() {
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }

 private:
  sqlite3* db_ = nullptr;
};

class StoreWalCapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = testing_support::TempDir::Create("nictune_wal_cap_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<testing_support::TempDir>(*std::move(dir));
    StoreOptions options;
    options.wal_cap_bytes = kCap;
    auto store = Store::Open(dir_->path(), options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    // Something for the reader to read, and one window's WAL growth measured with nobody reading.
    ASSERT_TRUE(store_->AppendSamples(kT0, Window(0)).ok());
    const int64_t before = WalFileBytes(store_->path());
    ASSERT_TRUE(store_->AppendSamples(kT0 + absl::Seconds(1), Window(1)).ok());
    window_bytes_ = std::max<int64_t>(WalFileBytes(store_->path()) - before, 4096);
  }
  void TearDown() override {
    store_.reset();
    dir_.reset();
  }

  std::unique_ptr<testing_support::TempDir> dir_;
  std::unique_ptr<Store> store_;
  int64_t window_bytes_ = 0;
};

TEST_F(StoreWalCapTest, AReaderHoldingASnapshotCannotGrowTheWalPastItsCap) {
  int refused = 0;
  int64_t largest = 0;
  {
    LongReader reader(store_->path());
    for (int i = 2; i < 62; ++i) {
      absl::StatusOr<AppendResult> appended =
          store_->AppendSamples(kT0 + absl::Seconds(i), Window(i));
      largest = std::max(largest, WalFileBytes(store_->path()));
      if (appended.ok()) continue;
      ++refused;
      EXPECT_EQ(appended.status().code(), absl::StatusCode::kResourceExhausted)
          << appended.status();
      EXPECT_THAT(appended.status().message(), HasSubstr(store_->path() + "-wal"));
      EXPECT_THAT(appended.status().message(), HasSubstr("read snapshot"));
    }
  }
  std::cout << "one window: " << window_bytes_ << " WAL bytes; with a reader holding a snapshot "
            << "the WAL peaked at " << largest << " bytes (cap " << kCap << "), " << refused
            << " of 60 windows refused\n";
  EXPECT_GT(refused, 0) << "the reader never pinned the WAL: the test proves nothing";
  EXPECT_LE(largest, kCap + 2 * window_bytes_);

  // The reader is gone: the next window empties the WAL first, and is stored.
  absl::StatusOr<AppendResult> after = store_->AppendSamples(kT0 + absl::Seconds(100), Window(100));
  EXPECT_TRUE(after.ok()) << after.status();
  EXPECT_LE(WalFileBytes(store_->path()), kCap);
}

TEST(StoreWalUncappedTest, WithoutACapTheSameReaderGrowsTheWalWindowByWindow) {
  // What the cap is for: the same reader and windows, a cap out of reach.
  auto dir = testing_support::TempDir::Create("nictune_wal_uncapped_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  StoreOptions options;
  options.wal_cap_bytes = int64_t{1} << 40;
  auto store = Store::Open(dir->path(), options);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->AppendSamples(kT0, Window(0)).ok());
  {
    LongReader reader((*store)->path());
    for (int i = 1; i < 61; ++i) {
      ASSERT_TRUE((*store)->AppendSamples(kT0 + absl::Seconds(i), Window(i)).ok());
    }
    std::cout << "uncapped, the WAL reached " << WalFileBytes((*store)->path())
              << " bytes after 60 windows under the reader\n";
    EXPECT_GT(WalFileBytes((*store)->path()), kCap);
  }
}

TEST_F(StoreWalCapTest, TheStoresOwnReaderQueryingBackToBackNeverHoldsACheckpointOff) {
  std::atomic<bool> stop{false};
  std::atomic<int> queries{0};
  std::thread reader([&] {
    while (!stop.load()) {
      absl::StatusOr<HistoryResult> history = store_->QueryHistory(
          {.series = "nictune_test", .since = kT0, .until = kT0 + absl::Hours(1)});
      EXPECT_TRUE(history.ok()) << history.status();
      ++queries;
    }
  });
  int64_t largest = 0;
  int refused = 0;
  for (int i = 2; i < 122; ++i) {
    absl::StatusOr<AppendResult> appended =
        store_->AppendSamples(kT0 + absl::Seconds(i), Window(i));
    if (!appended.ok()) ++refused;
    largest = std::max(largest, WalFileBytes(store_->path()));
  }
  stop = true;
  reader.join();
  std::cout << queries.load() << " history queries meanwhile; the WAL peaked at " << largest
            << " bytes (cap " << kCap << ")\n";
  EXPECT_GT(queries.load(), 0);
  EXPECT_EQ(refused, 0);
  EXPECT_LE(largest, kCap + 2 * window_bytes_);
}

}  // namespace
}  // namespace nictune::store
