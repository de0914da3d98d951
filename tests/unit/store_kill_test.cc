// SPDX-License-Identifier: Apache-2.0
// kill -9 during writes, again and again, on one state directory. A child process opens the
// journal and the store and writes without pause: windows of samples, maintenance, and change
// journal rows (each id reported to the parent once JournalOriginal or MarkChange returned). The
// parent SIGKILLs it at a seeded random moment, then checks straight from the files (no store
// code) that PRAGMA integrity_check is ok and that every row the child was told is written is
// there in the state it was told; then the journal and the store open without moving anything
// aside. 100 kills by default
// (NICTUNE_STORE_KILLS sets how many, NICTUNE_STORE_KILL_SEED repeats the kill times).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/store/change_state.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "gtest/gtest.h"
#include "tests/support/journal_file.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_env.h"

namespace nictune::store {
namespace {

constexpr int kSeries = 60;
const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

// What the child tells the parent after each journal call returned.
struct Written {
  int64_t id = 0;
  int64_t applied_value = -1;  // -1: journaled only
};

// The child: writes until it is killed. Never returns.
[[noreturn]] void WriteUntilKilled(const std::string& dir, int iteration, int report_fd) {
  StoreOptions options;
  // Small, so that retention and downsampling (maintenance's deletes) run within a few windows.
  options.resolutions = {{absl::Seconds(1), absl::Seconds(20)},
                         {absl::Seconds(10), absl::Hours(1)}};
  absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(dir, absl::Seconds(5), kT0);
  if (!journal.ok()) ::_exit(2);
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
  if (!store.ok()) ::_exit(2);
  // Each child's windows come after the previous child's, as a restarted agent's do.
  absl::Time ts = kT0 + absl::Seconds(iteration * 1000);
  for (int64_t window = 0;; ++window) {
    std::vector<SeriesSample> samples;
    for (int s = 0; s < kSeries; ++s) {
      samples.push_back({"nictune_kill", {{"n", absl::StrCat(s)}}, static_cast<double>(window)});
    }
    if (!(*store)->AppendSamples(ts, samples).ok()) ::_exit(3);
    if (!(*store)->Maintain(ts).ok()) ::_exit(4);
    absl::StatusOr<int64_t> id = (*journal)->JournalOriginal(
        {"boot-kill", ts, "netdev_budget", absl::StrCat("host", window % 3), 300, "kill test"});
    if (!id.ok()) ::_exit(5);
    Written written{.id = *id};
    if (::write(report_fd, &written, sizeof written) != sizeof written) ::_exit(6);
    if (!(*journal)->MarkChange({*id, ts, ChangeState::kApplied, 600 + window, "written"}).ok()) {
      ::_exit(7);
    }
    written.applied_value = 600 + window;
    if (::write(report_fd, &written, sizeof written) != sizeof written) ::_exit(6);
    ts += absl::Seconds(1);
  }
}

TEST(StoreKillTest, KilledMidWriteAHundredTimesTheDatabaseIsSoundAndHoldsEveryReportedRow) {
  const int kills = testing_support::EnvInt("NICTUNE_STORE_KILLS", 100);
  const int seed = testing_support::EnvInt(
      "NICTUNE_STORE_KILL_SEED", static_cast<int>(absl::ToUnixSeconds(absl::Now()) % 100000));
  std::cout << kills << " kills, seed " << seed << " (NICTUNE_STORE_KILL_SEED=" << seed
            << " repeats them)\n";
  std::mt19937 random(static_cast<std::mt19937::result_type>(seed));
  // From the fork: the two Opens take a few ms, so the earliest kills land in them (their schemas
  // and pragmas are writes too), the later ones among samples, maintenance and journal commits.
  std::uniform_int_distribution<int> kill_after_us(0, 100'000);
  auto dir = testing_support::TempDir::Create("nictune_store_kill_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string database = dir->path() + "/" + kJournalFileName;
  const std::string history = dir->path() + "/" + kDatabaseFileName;

  std::map<int64_t, int64_t> reported;  // id -> applied value, -1 while only journaled
  int with_rows = 0;
  const absl::Time started = absl::Now();
  for (int kill = 0; kill < kills; ++kill) {
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(report[0]);
      WriteUntilKilled(dir->path(), kill, report[1]);
    }
    ::close(report[1]);
    ::usleep(static_cast<useconds_t>(kill_after_us(random)));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "kill " << kill << ": the child ended by itself (status " << status
        << ": exit 2..7 is a failed store call)";
    Written written;
    int rows = 0;
    while (::read(report[0], &written, sizeof written) == sizeof written) {
      reported[written.id] = written.applied_value;
      ++rows;
    }
    ::close(report[0]);
    with_rows += rows > 0 ? 1 : 0;

    absl::StatusOr<testing_support::JournalFile> file = testing_support::ReadJournalFile(database);
    // Killed inside the first Open: no file yet, or a sound one without the schema.
    if (!file.ok() && reported.empty() &&
        (!std::filesystem::exists(database) || absl::IsNotFound(file.status()))) {
      continue;
    }
    ASSERT_TRUE(file.ok()) << "kill " << kill << ": " << file.status();
    ASSERT_EQ(file->integrity, "ok") << "kill " << kill;
    if (std::filesystem::exists(history)) {
      // Sound, with or without its schema yet (NotFound: killed inside its first Open).
      absl::StatusOr<testing_support::JournalFile> samples =
          testing_support::ReadJournalFile(history);
      ASSERT_TRUE(samples.ok() || absl::IsNotFound(samples.status()))
          << "kill " << kill << ": " << samples.status();
      if (samples.ok()) {
        EXPECT_EQ(samples->integrity, "ok") << "kill " << kill << ": " << history;
      }
    }
    std::map<int64_t, const testing_support::JournalRow*> by_id;
    for (const testing_support::JournalRow& row : file->rows) by_id[row.id] = &row;
    for (const auto& [id, applied] : reported) {
      auto row = by_id.find(id);
      ASSERT_NE(row, by_id.end()) << "kill " << kill << ": journal row " << id
                                  << " was reported written and is gone";
      if (applied >= 0) {
        EXPECT_EQ(row->second->state, "applied") << "kill " << kill << ": row " << id;
        EXPECT_EQ(row->second->new_value, applied) << "kill " << kill << ": row " << id;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  const absl::Duration took = absl::Now() - started;

  // The journal and the store themselves find their files sound: nothing moved aside.
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      Journal::Open(dir->path(), absl::Seconds(5), absl::Now());
  ASSERT_TRUE(journal.ok()) << journal.status();
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir->path(), StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status();
  for (const auto& entry : std::filesystem::directory_iterator(dir->path())) {
    EXPECT_EQ(entry.path().filename().string().find(".corrupt"), std::string::npos) << entry.path();
  }
  std::cout << kills << " kills in " << took << ": integrity ok after each; " << with_rows
            << " kills came after journal rows were written, " << reported.size()
            << " rows reported and all found\n";
  EXPECT_GT(with_rows, kills / 2) << "most kills must land among the writes, not before them";
}

}  // namespace
}  // namespace nictune::store
