// SPDX-License-Identifier: Apache-2.0
// A full disk makes appends fail with ResourceExhausted, names the database, stores nothing of
// the failed window, and leaves the store working once space is back. The disk is a 1 MiB tmpfs
// the test mounts on its own temporary directory and unmounts afterwards.
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/privileges.h"
#include "tests/support/tiny_tmpfs.h"

namespace nictune::store {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

std::vector<SeriesSample> Window(int series, double value) {
  std::vector<SeriesSample> samples;
  for (int s = 0; s < series; ++s) {
    samples.push_back({"nictune_test", {{"n", std::to_string(s)}}, value});
  }
  return samples;
}

TEST(StoreDiskFullTest, FullDiskIsResourceExhaustedAndTheStoreRecoversWhenSpaceFrees) {
  const std::string why_not = testing_support::WhyNotPrivileged();
  if (!why_not.empty()) GTEST_SKIP() << why_not;
  absl::StatusOr<testing_support::TinyTmpfs> disk =
      testing_support::TinyTmpfs::Mount("nictune-store-full-", "1m");
  ASSERT_TRUE(disk.ok()) << disk.status();

  ASSERT_EQ(::mkdir((disk->dir() + "/state").c_str(), 0700), 0);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      Journal::Open(disk->dir() + "/state", absl::Seconds(5), kT0);
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE((*journal)->JournalOriginal({"boot", kT0, "rx_usecs", "veth0", 8, "before"}).ok());
  absl::StatusOr<std::unique_ptr<Store>> opened =
      Store::Open(disk->dir() + "/state", StoreOptions{});
  ASSERT_TRUE(opened.ok()) << opened.status();
  Store& store = **opened;
  ASSERT_TRUE(store.AppendSamples(kT0, Window(50, 1.0)).ok());

  const std::string filler = disk->dir() + "/filler";
  absl::StatusOr<int64_t> filled = testing_support::FillUntilFull(filler);
  ASSERT_TRUE(filled.ok()) << filled.status();
  ASSERT_GT(*filled, 0);

  // The WAL may still have room in pages it already owns; new series need new pages soon.
  absl::Status full;
  int attempt = 0;
  for (; attempt < 100 && full.ok(); ++attempt) {
    full = store.AppendSamples(kT0 + absl::Seconds(1 + attempt), Window(400 + 50 * attempt, 2.0))
               .status();
  }
  ASSERT_FALSE(full.ok()) << "100 windows fitted on a full 1 MiB disk";
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_THAT(full.message(), HasSubstr(store.path()));
  EXPECT_THAT(full.message(), HasSubstr("append samples"));
  EXPECT_THAT(full.message(), AnyOf(HasSubstr("SQLITE_FULL"), HasSubstr("errno 28")));
  const absl::Time failed_ts = kT0 + absl::Seconds(attempt);

  // Still serving reads while full, and Stats names the failure.
  absl::StatusOr<HistoryResult> during =
      store.QueryHistory({"nictune_test", {{"n", "0"}}, kT0, kT0 + absl::Seconds(1)});
  ASSERT_TRUE(during.ok()) << during.status();
  absl::StatusOr<StoreStats> stats = store.Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->last_error, full.message());
  // The journal is read on a full disk: restoring originals needs no room.
  absl::StatusOr<std::vector<ChangeRecord>> owed = (*journal)->PendingChanges("boot");
  ASSERT_TRUE(owed.ok()) << owed.status();
  EXPECT_EQ(owed->size(), 1u);

  ASSERT_EQ(::unlink(filler.c_str()), 0);
  const absl::Time later = failed_ts + absl::Seconds(1);
  absl::StatusOr<AppendResult> after = store.AppendSamples(later, Window(50, 3.0));
  ASSERT_TRUE(after.ok()) << after.status();
  absl::StatusOr<HistoryResult> history =
      store.QueryHistory({"nictune_test", {{"n", "0"}}, kT0, later});
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_EQ(history->series.size(), 1u);
  std::vector<absl::Time> stamps;
  for (const HistoryPoint& p : history->series[0].points) stamps.push_back(p.ts);
  EXPECT_EQ(stamps.front(), kT0);
  EXPECT_EQ(stamps.back(), later);
  // Nothing of the window that failed.
  EXPECT_EQ(std::count(stamps.begin(), stamps.end(), failed_ts), 0);
  // And the journal takes durable writes again.
  EXPECT_TRUE(
      (*journal)->JournalOriginal({"boot", later, "rx_usecs", "veth0", 8, "after full"}).ok());
}

}  // namespace
}  // namespace nictune::store
