// SPDX-License-Identifier: Apache-2.0
// The bound on the store's WAL file. SQLite appends every commit to the WAL and copies it into the
// database at checkpoints; the WAL restarts from its beginning only once no reader uses its
// frames. journal_size_limit and the automatic checkpoints keep it near 4 MiB, but a reader that
// holds one snapshot open (an operator's sqlite3 shell, a backup) pins every frame after it, and
// each window then grows the file. Over its cap the writer tries a checkpoint that empties the WAL
// without waiting for anyone; while a reader keeps it from finishing, bulk writes are refused
// (ResourceExhausted, as for a full disk: counted, logged once a minute, sampling goes on), so the
// file never grows past the cap by more than one transaction.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

// Bytes of `database_path`-wal on disk; 0 when it does not exist.
int64_t WalFileBytes(const std::string& database_path);

// Ok when the WAL is within cap_bytes, or emptied by a checkpoint that waited for nobody; else
// ResourceExhausted naming the file, its size, the cap and why. The caller keeps its own readers
// out of any snapshot meanwhile (they would count as the reader that blocks the checkpoint).
absl::Status MakeWalRoom(Connection& writer, int64_t cap_bytes);

}  // namespace nictune::store
