// SPDX-License-Identifier: Apache-2.0
#include "agent/store/sqlite_error.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace nictune::store {
namespace {

absl::StatusCode CodeFor(int primary, int system_errno) {
  switch (primary) {
    case SQLITE_FULL:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_IOERR:
      // SQLite reports ENOSPC from fsync or ftruncate as an I/O error, not SQLITE_FULL.
      return system_errno == ENOSPC ? absl::StatusCode::kResourceExhausted
                                    : absl::StatusCode::kInternal;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN:
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
      return absl::StatusCode::kFailedPrecondition;
    case SQLITE_NOMEM:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

absl::string_view SqliteCodeName(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_OK:
      return "SQLITE_OK";
    case SQLITE_ERROR:
      return "SQLITE_ERROR";
    case SQLITE_INTERNAL:
      return "SQLITE_INTERNAL";
    case SQLITE_PERM:
      return "SQLITE_PERM";
    case SQLITE_ABORT:
      return "SQLITE_ABORT";
    case SQLITE_BUSY:
      return "SQLITE_BUSY";
    case SQLITE_LOCKED:
      return "SQLITE_LOCKED";
    case SQLITE_NOMEM:
      return "SQLITE_NOMEM";
    case SQLITE_READONLY:
      return "SQLITE_READONLY";
    case SQLITE_INTERRUPT:
      return "SQLITE_INTERRUPT";
    case SQLITE_IOERR:
      return "SQLITE_IOERR";
    case SQLITE_CORRUPT:
      return "SQLITE_CORRUPT";
    case SQLITE_NOTFOUND:
      return "SQLITE_NOTFOUND";
    case SQLITE_FULL:
      return "SQLITE_FULL";
    case SQLITE_CANTOPEN:
      return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL:
      return "SQLITE_PROTOCOL";
    case SQLITE_SCHEMA:
      return "SQLITE_SCHEMA";
    case SQLITE_TOOBIG:
      return "SQLITE_TOOBIG";
    case SQLITE_CONSTRAINT:
      return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH:
      return "SQLITE_MISMATCH";
    case SQLITE_MISUSE:
      return "SQLITE_MISUSE";
    case SQLITE_NOLFS:
      return "SQLITE_NOLFS";
    case SQLITE_AUTH:
      return "SQLITE_AUTH";
    case SQLITE_RANGE:
      return "SQLITE_RANGE";
    case SQLITE_NOTADB:
      return "SQLITE_NOTADB";
    default:
      return "SQLITE_UNKNOWN";
  }
}

absl::Status SqliteError(absl::string_view path, absl::string_view operation, int result_code,
                         sqlite3* db) {
  const int primary = result_code & 0xff;
  const int system_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  // sqlite3_errmsg describes the most recent failure on the handle, which is this one.
  const char* text = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(result_code);
  std::string message = absl::StrFormat("SQLite %s: %s: %s (%s, extended code %d", path, operation,
                                        text, SqliteCodeName(result_code), result_code);
  if (system_errno != 0) {
    absl::StrAppendFormat(&message, ", errno %d %s", system_errno, std::strerror(system_errno));
  }
  message.push_back(')');
  return absl::Status(CodeFor(primary, system_errno), message);
}

}  // namespace nictune::store
