// SPDX-License-Identifier: Apache-2.0
// The change journal: an original value is on disk (journal.db fsynced) before JournalOriginal
// returns, while the history's sample appends skip the fsync; a journaled change survives the
// process being killed; states move only forward; pending changes are per boot.
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "agent/store/change_state.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

// A VFS that forwards to the default one and records which files SQLite fsyncs. It is how a
// test sees the durability SQLite promises without pulling the power.
class SyncRecorder {
 public:
  static SyncRecorder& Get() {
    static SyncRecorder* const recorder = new SyncRecorder();
    return *recorder;
  }

  void Install() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;
    vfs_.zName = "nictune_sync_recorder";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + real_->szOsFile;
    vfs_.xOpen = &Open;
    ASSERT_EQ(sqlite3_vfs_register(&vfs_, /*makeDflt=*/1), SQLITE_OK);
  }
  void Uninstall() {
    sqlite3_vfs_register(real_, 1);
    sqlite3_vfs_unregister(&vfs_);
  }

  std::vector<std::string> TakeSyncs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(syncs_, {});
  }

 private:
  struct File {
    sqlite3_file base;
    std::string* name;
    sqlite3_file* real;
  };

  static sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

  static int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    SyncRecorder& self = Get();
    File* shim = reinterpret_cast<File*>(file);
    shim->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + sizeof(File));
    shim->name = new std::string(name != nullptr ? name : "(temp)");
    const int rc = self.real_->xOpen(self.real_, name, shim->real, flags, out_flags);
    if (shim->real->pMethods == nullptr) {
      delete shim->name;
      shim->base.pMethods = nullptr;
      return rc;
    }
    self.methods_ = *shim->real->pMethods;
    self.methods_.xClose = &Close;
    self.methods_.xRead = [](sqlite3_file* f, void* b, int n, sqlite3_int64 o) {
      return Real(f)->pMethods->xRead(Real(f), b, n, o);
    };
    self.methods_.xWrite = [](sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
      return Real(f)->pMethods->xWrite(Real(f), b, n, o);
    };
    self.methods_.xTruncate = [](sqlite3_file* f, sqlite3_int64 size) {
      return Real(f)->pMethods->xTruncate(Real(f), size);
    };
    self.methods_.xSync = &Sync;
    self.methods_.xFileSize = [](sqlite3_file* f, sqlite3_int64* size) {
      return Real(f)->pMethods->xFileSize(Real(f), size);
    };
    self.methods_.xLock = [](sqlite3_file* f, int l) {
      return Real(f)->pMethods->xLock(Real(f), l);
    };
    self.methods_.xUnlock = [](sqlite3_file* f, int l) {
      return Real(f)->pMethods->xUnlock(Real(f), l);
    };
    self.methods_.xCheckReservedLock = [](sqlite3_file* f, int* out) {
      return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
    };
    self.methods_.xFileControl = [](sqlite3_file* f, int op, void* arg) {
      return Real(f)->pMethods->xFileControl(Real(f), op, arg);
    };
    self.methods_.xSectorSize = [](sqlite3_file* f) {
      return Real(f)->pMethods->xSectorSize(Real(f));
    };
    self.methods_.xDeviceCharacteristics = [](sqlite3_file* f) {
      return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
    };
    self.methods_.xShmMap = [](sqlite3_file* f, int page, int size, int extend,
                               void volatile** out) {
      return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
    };
    self.methods_.xShmLock = [](sqlite3_file* f, int offset, int n, int lock_flags) {
      return Real(f)->pMethods->xShmLock(Real(f), offset, n, lock_flags);
    };
    self.methods_.xShmBarrier = [](sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); };
    self.methods_.xShmUnmap = [](sqlite3_file* f, int remove) {
      return Real(f)->pMethods->xShmUnmap(Real(f), remove);
    };
    self.methods_.xFetch = [](sqlite3_file* f, sqlite3_int64 offset, int n, void** out) {
      return Real(f)->pMethods->xFetch(Real(f), offset, n, out);
    };
    self.methods_.xUnfetch = [](sqlite3_file* f, sqlite3_int64 offset, void* p) {
      return Real(f)->pMethods->xUnfetch(Real(f), offset, p);
    };
    shim->base.pMethods = &self.methods_;
    return rc;
  }

  static int Close(sqlite3_file* f) {
    File* shim = reinterpret_cast<File*>(f);
    const int rc = shim->real->pMethods->xClose(shim->real);
    delete shim->name;
    return rc;
  }

  static int Sync(sqlite3_file* f, int flags) {
    File* shim = reinterpret_cast<File*>(f);
    const int rc = shim->real->pMethods->xSync(shim->real, flags);
    std::lock_guard<std::mutex> lock(Get().mutex_);
    Get().syncs_.push_back(*shim->name);
    return rc;
  }

  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  sqlite3_io_methods methods_{};
  std::mutex mutex_;
  std::vector<std::string> syncs_;
};

size_t SyncsOf(const std::vector<std::string>& syncs, absl::string_view file) {
  return static_cast<size_t>(std::count_if(
      syncs.begin(), syncs.end(), [&](const std::string& s) { return absl::EndsWith(s, file); }));
}

class StoreJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-store-journal-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    journal_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void OpenJournal() {
    absl::StatusOr<std::unique_ptr<store::Journal>> journal =
        Journal::Open(dir_, absl::Seconds(5), kT0);
    ASSERT_TRUE(journal.ok()) << journal.status();
    journal_ = std::move(*journal);
  }

  int64_t JournalOne(const std::string& boot, const std::string& target, int64_t original) {
    absl::StatusOr<int64_t> id =
        journal_->JournalOriginal({boot, kT0, "rx_usecs", target, original, "lower latency"});
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(-1);
  }

  std::string dir_;
  std::unique_ptr<store::Journal> journal_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreJournalTest, JournalCommitsFsyncTheJournalAndSampleAppendsDoNot) {
  SyncRecorder::Get().Install();
  OpenJournal();
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status();
  store_ = std::move(*store);
  SyncRecorder::Get().TakeSyncs();

  ASSERT_TRUE(store_->AppendSamples(kT0, {{"nictune_x", {}, 1.0}}).ok());
  ASSERT_TRUE(store_->AppendSamples(kT0 + absl::Seconds(1), {{"nictune_x", {}, 2.0}}).ok());
  EXPECT_EQ(SyncRecorder::Get().TakeSyncs().size(), 0u)
      << "samples are written with synchronous=NORMAL";

  const int64_t id = JournalOne("boot-a", "eth9", 8);
  // Recorded inside the call: by the time the actuator holds the id, the row is on disk.
  std::vector<std::string> syncs = SyncRecorder::Get().TakeSyncs();
  EXPECT_GE(SyncsOf(syncs, "/journal.db"), 1u);
  EXPECT_EQ(SyncsOf(syncs, "nictune.db-wal"), 0u) << "the journal is apart from the history";

  ASSERT_TRUE(journal_->MarkChange({id, kT0, ChangeState::kApplied, 50, "written"}).ok());
  EXPECT_GE(SyncsOf(SyncRecorder::Get().TakeSyncs(), "/journal.db"), 1u);
  journal_.reset();
  store_.reset();
  SyncRecorder::Get().Uninstall();
}

TEST_F(StoreJournalTest, AJournaledOriginalSurvivesTheProcessBeingKilled) {
  int id_pipe[2];
  ASSERT_EQ(::pipe(id_pipe), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(id_pipe[0]);
    absl::StatusOr<std::unique_ptr<store::Journal>> journal =
        Journal::Open(dir_, absl::Seconds(5), kT0);
    if (!journal.ok()) ::_exit(2);
    absl::StatusOr<int64_t> id =
        (*journal)->JournalOriginal({"boot-a", kT0, "netdev_budget", "host", 300, "squeezed"});
    if (!id.ok()) ::_exit(3);
    const int64_t value = *id;
    if (::write(id_pipe[1], &value, sizeof(value)) != sizeof(value)) ::_exit(4);
    // Killed before the kernel write would happen: no destructor, no checkpoint, no close.
    ::raise(SIGKILL);
    ::_exit(5);
  }
  ::close(id_pipe[1]);
  int64_t id = -1;
  const ssize_t got = ::read(id_pipe[0], &id, sizeof(id));
  ::close(id_pipe[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof(id)));

  OpenJournal();
  absl::StatusOr<std::vector<ChangeRecord>> pending = journal_->PendingChanges("boot-a");
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, id);
  EXPECT_EQ((*pending)[0].knob, "netdev_budget");
  EXPECT_EQ((*pending)[0].original, 300);
  EXPECT_EQ((*pending)[0].state, ChangeState::kJournaled);
}

TEST_F(StoreJournalTest, StatesMoveOnlyForwardAndEachStepIsRecorded) {
  OpenJournal();
  const int64_t id = JournalOne("boot-a", "eth9", 8);
  ASSERT_TRUE(
      journal_->MarkChange({id, kT0 + absl::Seconds(1), ChangeState::kApplied, 50, "written"})
          .ok());
  ASSERT_TRUE(
      journal_
          ->MarkChange({id, kT0 + absl::Seconds(11), ChangeState::kVerified, {}, "guard passed"})
          .ok());
  absl::Status back = journal_->MarkChange({id, kT0, ChangeState::kApplied, 60, "again"});
  EXPECT_EQ(back.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(back.message(), HasSubstr("is verified, which cannot become applied"));
  ASSERT_TRUE(
      journal_->MarkChange({id, kT0 + absl::Seconds(20), ChangeState::kRestored, 8, "on exit"})
          .ok());
  absl::Status after_final =
      journal_->MarkChange({id, kT0, ChangeState::kRolledBack, {}, "too late"});
  EXPECT_EQ(after_final.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(journal_->MarkChange({id + 100, kT0, ChangeState::kApplied, {}, "x"}).code(),
            absl::StatusCode::kNotFound);

  absl::StatusOr<std::vector<ChangeRecord>> changes = journal_->ChangesSince(kT0);
  ASSERT_TRUE(changes.ok()) << changes.status();
  ASSERT_EQ(changes->size(), 1u);
  const ChangeRecord& c = (*changes)[0];
  EXPECT_EQ(c.state, ChangeState::kRestored);
  EXPECT_EQ(c.original, 8);
  EXPECT_EQ(c.new_value, 8);
  EXPECT_EQ(c.reason, "on exit");
  EXPECT_EQ(c.updated_ts, kT0 + absl::Seconds(20));
  EXPECT_EQ(c.ts, kT0);
}

TEST_F(StoreJournalTest, PendingChangesAreThoseOfThisBootThatStillOweTheKernel) {
  OpenJournal();
  const int64_t stale = JournalOne("boot-old", "eth9", 8);
  const int64_t applied = JournalOne("boot-new", "eth9", 8);
  const int64_t released = JournalOne("boot-new", "eth8", 16);
  const int64_t journaled = JournalOne("boot-new", "eth7", 32);
  ASSERT_TRUE(journal_->MarkChange({applied, kT0, ChangeState::kApplied, 50, "written"}).ok());
  ASSERT_TRUE(journal_->MarkChange({released, kT0, ChangeState::kReleased, {}, "EOPNOTSUPP"}).ok());

  absl::StatusOr<std::vector<ChangeRecord>> pending = journal_->PendingChanges("boot-new");
  ASSERT_TRUE(pending.ok()) << pending.status();
  std::vector<int64_t> ids;
  for (const ChangeRecord& c : *pending) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<int64_t>{applied, journaled}));
  EXPECT_NE(stale, applied);

  for (ChangeState s : {ChangeState::kJournaled, ChangeState::kApplied, ChangeState::kVerified,
                        ChangeState::kRolledBack, ChangeState::kRestored, ChangeState::kReleased}) {
    EXPECT_EQ(ParseChangeState(ChangeStateName(s)), s);
  }
}

}  // namespace
}  // namespace nictune::store
