// SPDX-License-Identifier: Apache-2.0
// The change journal: the original value of every knob is on disk before the kernel is touched.
// It lives in its own small file, state_dir/journal.db, apart from the history in nictune.db, so
// that damage to the history, or a disk too full to grow it, cannot cost a journaled original.
//
// Durability: a rollback journal (journal_mode=PERSIST) with synchronous=FULL, so COMMIT fsyncs
// before it returns: when JournalOriginal returns an id the row survives a crash or power loss,
// and the actuator writes the kernel only after it has the id. PERSIST keeps the rollback file's
// blocks between commits, and reading needs no -shm file, so restoring originals needs no free
// space at all (marking them restored needs a few pages, and is retried at the next start when
// there are none).
//
// Opening: a journal.db that fails quick_check has every row that can still be read copied into
// a fresh file before the damaged one is moved aside. An older nictuned kept the journal in
// nictune.db; its rows are copied over once, before the history store opens (and so before a
// damaged nictune.db could be moved aside). Every method is safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

inline constexpr const char* kJournalFileName = "journal.db";

class Journal {
 public:
  // state_dir must exist (the caller holds its lock, state_lock.h).
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const std::string& state_dir,
                                                       absl::Duration busy_timeout, absl::Time now);

  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Durable when it returns: call it, and only then write the kernel.
  absl::StatusOr<int64_t> JournalOriginal(const OriginalValue& original);
  // NotFound for an unknown id; FailedPrecondition for a transition change_state.h forbids.
  absl::Status MarkChange(const ChangeUpdate& update);
  // Changes of this boot that still owe the kernel its original value, oldest first.
  absl::StatusOr<std::vector<ChangeRecord>> PendingChanges(const std::string& boot_id);
  // Every change journaled at or after `since`, oldest first.
  absl::StatusOr<std::vector<ChangeRecord>> ChangesSince(absl::Time since);

  const std::string& path() const { return path_; }

 private:
  Journal(std::string path, Connection connection)
      : path_(std::move(path)), connection_(std::move(connection)) {}

  const std::string path_;
  std::mutex mutex_;
  Connection connection_;
};

}  // namespace nictune::store
