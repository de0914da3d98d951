// SPDX-License-Identifier: Apache-2.0
// How much room the database takes: the pages holding data (what the disk cap limits) and the
// files on disk (what an operator sees with du).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

struct PageUsage {
  int64_t page_size = 0;
  int64_t pages = 0;       // size of the main file in pages
  int64_t free_pages = 0;  // on the freelist: reusable, returned to the disk by incremental_vacuum

  int64_t file_bytes() const { return pages * page_size; }
  int64_t used_bytes() const { return (pages - free_pages) * page_size; }
};

absl::StatusOr<PageUsage> ReadPageUsage(Connection& connection);

// Bytes of `path` plus its -wal and -shm files; missing files count zero.
int64_t DatabaseFilesBytes(const std::string& path);

}  // namespace nictune::store
