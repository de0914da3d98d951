// SPDX-License-Identifier: Apache-2.0
#include "agent/store/disk_usage.h"

#include <sys/stat.h>

namespace nictune::store {

absl::StatusOr<PageUsage> ReadPageUsage(Connection& connection) {
  PageUsage usage;
  absl::StatusOr<std::optional<int64_t>> value =
      connection.QueryInt64("PRAGMA page_size", "read page size");
  if (!value.ok()) return value.status();
  usage.page_size = value->value_or(0);
  value = connection.QueryInt64("PRAGMA page_count", "read page count");
  if (!value.ok()) return value.status();
  usage.pages = value->value_or(0);
  value = connection.QueryInt64("PRAGMA freelist_count", "read free page count");
  if (!value.ok()) return value.status();
  usage.free_pages = value->value_or(0);
  return usage;
}

int64_t DatabaseFilesBytes(const std::string& path) {
  int64_t total = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    struct stat info {};
    if (::stat((path + suffix).c_str(), &info) == 0) total += static_cast<int64_t>(info.st_size);
  }
  return total;
}

}  // namespace nictune::store
