// SPDX-License-Identifier: Apache-2.0
// The change journal survives what happens to the files around it: damage to the history
// (nictune.db) never reaches it; an older release's journal inside nictune.db is copied over
// once, also from a damaged file; a damaged journal.db gives up every row that can still be
// read; and one agent holds the state directory at a time.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/store/journal.h"
#include "agent/store/state_lock.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);
constexpr int kPageBytes = 4096;

// Overwrites page `page` (0-based, as dd's seek counts 4 KiB blocks) with random bytes.
void DamagePage(const std::string& path, int64_t page, uint32_t seed) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(file.good()) << path;
  std::mt19937 random(seed);
  std::string garbage(kPageBytes, '\0');
  for (char& c : garbage) c = static_cast<char>(random());
  file.seekp(page * kPageBytes);
  file.write(garbage.data(), kPageBytes);
  ASSERT_TRUE(file.good()) << path << " page " << page;
}

int64_t Pages(const std::string& path) {
  return static_cast<int64_t>(std::filesystem::file_size(path)) / kPageBytes;
}

// A statement on a raw connection, as an older nictuned or an operator's sqlite3 would run it.
void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "") << " in " << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

int64_t QueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    value = sqlite3_column_int64(statement, 0);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return value;
}

class JournalRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-journal-recovery-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string History() const { return absl::StrCat(dir_, "/", kDatabaseFileName); }
  std::string JournalPath() const { return absl::StrCat(dir_, "/", kJournalFileName); }

  // A history of `windows` windows of 200 series: many pages, most of them samples.
  void WriteHistory(int windows) {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
    for (int w = 0; w < windows; ++w) {
      std::vector<SeriesSample> samples;
      for (int s = 0; s < 200; ++s) {
        samples.push_back({"nictune_x", {{"n", absl::StrCat(s)}}, static_cast<double>(w)});
      }
      ASSERT_TRUE((*store)->AppendSamples(kT0 + absl::Seconds(w), samples).ok());
    }
  }

  // What an older nictuned left in nictune.db: two changes, one still owing its original.
  void WriteLegacyJournal() {
    Exec(History(),
         "INSERT INTO changes (id, boot_id, ts, updated_ts, knob, target, original, new_value, "
         "state, reason) VALUES "
         "(7, 'boot-a', 1700000000000, 1700000001000, 'rx_usecs', 'eth0', 300, 600, 'applied', "
         "'written'), "
         "(8, 'boot-a', 1700000002000, 1700000003000, 'netdev_budget', 'host', 300, 300, "
         "'restored', 'on exit');");
  }

  std::unique_ptr<Journal> OpenJournal() {
    absl::StatusOr<std::unique_ptr<Journal>> journal = Journal::Open(dir_, absl::Seconds(5), kT0);
    EXPECT_TRUE(journal.ok()) << journal.status();
    return journal.ok() ? *std::move(journal) : nullptr;
  }

  std::vector<std::string> MovedAside(absl::string_view name) const {
    std::vector<std::string> moved;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      const std::string file = entry.path().filename().string();
      const bool companion = absl::EndsWith(file, "-journal") || absl::EndsWith(file, "-wal") ||
                             absl::EndsWith(file, "-shm");
      if (absl::StartsWith(file, absl::StrCat(name, ".corrupt-")) && !companion) {
        moved.push_back(file);
      }
    }
    return moved;
  }

  std::string dir_;
};

TEST_F(JournalRecoveryTest, DamageToTheHistoryNeverReachesTheJournal) {
  std::unique_ptr<Journal> journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<int64_t> id =
      journal->JournalOriginal({"boot-a", kT0, "rx_usecs", "eth0", 300, "lower latency"});
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(journal->MarkChange({*id, kT0, ChangeState::kApplied, 600, "written"}).ok());
  journal.reset();
  WriteHistory(40);
  // `dd if=/dev/urandom of=nictune.db bs=4096 seek=4 count=1 conv=notrunc`, and worse.
  for (const int64_t page : {int64_t{4}, Pages(History()) / 2, Pages(History()) - 1, int64_t{0}}) {
    DamagePage(History(), page, static_cast<uint32_t>(page));
  }
  journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> pending = journal->PendingChanges("boot-a");
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].original, 300);
  EXPECT_EQ((*pending)[0].new_value, 600);
  // The history itself is moved aside and started afresh, as before.
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(MovedAside(kDatabaseFileName).size(), 1u);
  EXPECT_TRUE(MovedAside(kJournalFileName).empty());
}

TEST_F(JournalRecoveryTest, AnOlderReleasesJournalIsCopiedOnceWithItsIds) {
  WriteHistory(2);
  WriteLegacyJournal();
  std::unique_ptr<Journal> journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> all = journal->ChangesSince(absl::InfinitePast());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, 7);
  EXPECT_EQ((*all)[0].state, ChangeState::kApplied);
  EXPECT_EQ((*all)[1].id, 8);
  // New ids follow the copied ones: an id names one change in every log.
  absl::StatusOr<int64_t> next =
      journal->JournalOriginal({"boot-a", kT0, "rx_usecs", "eth1", 8, "new"});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_GT(*next, 8);
  // Copied once: a change restored since is not brought back by a second open.
  ASSERT_TRUE(journal->MarkChange({7, kT0, ChangeState::kRestored, 300, "restored"}).ok());
  journal.reset();
  journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> pending = journal->PendingChanges("boot-a");
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, *next);
}

TEST_F(JournalRecoveryTest, AnOlderReleasesJournalIsCopiedFromADamagedHistory) {
  WriteHistory(40);
  WriteLegacyJournal();
  const int64_t changes_page = QueryInt(
      History(), "SELECT rootpage - 1 FROM sqlite_master WHERE type='table' AND name='changes'");
  ASSERT_GT(changes_page, 0);
  // Damage anywhere but the schema page and the journal's own page, at several offsets.
  int damaged = 0;
  for (const int64_t page :
       {int64_t{4}, Pages(History()) / 3, Pages(History()) / 2, Pages(History()) - 1}) {
    if (page == changes_page || page == 0) continue;
    DamagePage(History(), page, static_cast<uint32_t>(page));
    ++damaged;
  }
  ASSERT_GE(damaged, 3);
  std::unique_ptr<Journal> journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> pending = journal->PendingChanges("boot-a");
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, 7);
  EXPECT_EQ((*pending)[0].original, 300);
}

TEST_F(JournalRecoveryTest, ADamagedJournalGivesUpEveryRowThatCanBeRead) {
  std::unique_ptr<Journal> journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  for (int i = 0; i < 30; ++i) {
    absl::StatusOr<int64_t> id = journal->JournalOriginal(
        {"boot-a", kT0, "rx_usecs", absl::StrCat("eth", i), 300 + i, "lower latency"});
    ASSERT_TRUE(id.ok()) << id.status();
  }
  journal.reset();
  // An index's page: quick_check fails, the table itself reads whole.
  const int64_t index_page =
      QueryInt(JournalPath(), "SELECT rootpage - 1 FROM sqlite_master WHERE name='changes_by_ts'");
  ASSERT_GT(index_page, 0);
  DamagePage(JournalPath(), index_page, 11);
  journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> pending = journal->PendingChanges("boot-a");
  ASSERT_TRUE(pending.ok()) << pending.status();
  EXPECT_EQ(pending->size(), 30u);
  EXPECT_EQ(MovedAside(kJournalFileName).size(), 1u);
  EXPECT_EQ(QueryInt(JournalPath(), "SELECT count(*) FROM changes"), 30);
}

TEST_F(JournalRecoveryTest, AJournalDamagedBeyondReadingIsSetAsideAndAFreshOneStarts) {
  std::unique_ptr<Journal> journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  ASSERT_TRUE(journal->JournalOriginal({"boot-a", kT0, "rx_usecs", "eth0", 300, "x"}).ok());
  journal.reset();
  for (int64_t page = 0; page < Pages(JournalPath()); ++page) {
    DamagePage(JournalPath(), page, static_cast<uint32_t>(page + 100));
  }
  journal = OpenJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<std::vector<ChangeRecord>> all = journal->ChangesSince(absl::InfinitePast());
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->empty());
  // The damaged file is kept for study, not overwritten.
  ASSERT_EQ(MovedAside(kJournalFileName).size(), 1u);
  EXPECT_TRUE(journal->JournalOriginal({"boot-a", kT0, "rx_usecs", "eth0", 300, "x"}).ok());
}

TEST_F(JournalRecoveryTest, OneProcessHoldsTheStateDirectoryAndASecondIsToldWhich) {
  int ready[2];
  int done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t holder = ::fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    absl::StatusOr<StateDirLock> lock = StateDirLock::Acquire(dir_);
    char byte = lock.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    (void)!::read(done[0], &byte, 1);
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  absl::StatusOr<StateDirLock> second = StateDirLock::Acquire(dir_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr(absl::StrCat("held by PID ", holder)));
  EXPECT_THAT(second.status().message(), HasSubstr(dir_));
  // The holder ends (however it ends, the kernel drops its lock): the next one gets it.
  ASSERT_EQ(::write(done[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(holder, &status, 0), holder);
  absl::StatusOr<StateDirLock> third = StateDirLock::Acquire(dir_);
  EXPECT_TRUE(third.ok()) << third.status();
  std::ifstream pid_file(absl::StrCat(dir_, "/", kLockFileName));
  int64_t written = 0;
  pid_file >> written;
  EXPECT_EQ(written, ::getpid());
}

}  // namespace
}  // namespace nictune::store
