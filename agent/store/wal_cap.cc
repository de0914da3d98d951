// SPDX-License-Identifier: Apache-2.0
#include "agent/store/wal_cap.h"

#include <sys/stat.h>

#include "absl/strings/str_format.h"

namespace nictune::store {

int64_t WalFileBytes(const std::string& database_path) {
  struct stat info {};
  const std::string wal = database_path + "-wal";
  if (::stat(wal.c_str(), &info) != 0) return 0;
  return static_cast<int64_t>(info.st_size);
}

absl::Status MakeWalRoom(Connection& writer, int64_t cap_bytes) {
  const int64_t before = WalFileBytes(writer.path());
  if (before <= cap_bytes) return absl::OkStatus();
  absl::StatusOr<bool> emptied = writer.TryEmptyWal();
  if (!emptied.ok()) return emptied.status();
  const int64_t after = WalFileBytes(writer.path());
  if (after <= cap_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "SQLite %s-wal: %d bytes, over its cap of %d: another connection holds a read snapshot "
      "open, so no checkpoint can reset the WAL; samples and records are not written until it "
      "ends (the change journal still is)",
      writer.path(), after, cap_bytes));
}

}  // namespace nictune::store
