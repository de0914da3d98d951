// SPDX-License-Identifier: Apache-2.0
#include "agent/check/writable_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"

namespace nictune::check {
namespace {

absl::Status NotWritable(const std::string& dir, const std::string& why, int error) {
  return absl::PermissionDeniedError(absl::StrCat(dir, ": ", why, ": ", driver::ErrnoText(error)));
}

}  // namespace

absl::Status CheckDirectoryWritable(const std::string& dir) {
  struct stat info {};
  if (stat(dir.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return NotWritable(dir, "not a directory", ENOTDIR);
    if (access(dir.c_str(), W_OK | X_OK) == 0) return absl::OkStatus();
    return NotWritable(dir, "not writable", errno);
  }
  if (const int error = errno; error != ENOENT) return NotWritable(dir, "stat", error);
  // "/var/lib/nictune/" and "state" have parents "/var/lib" and ".".
  std::filesystem::path parent = std::filesystem::path(dir).lexically_normal();
  if (!parent.has_filename()) parent = parent.parent_path();
  parent = parent.parent_path();
  if (parent.empty()) parent = ".";
  if (access(parent.c_str(), W_OK | X_OK) == 0) return absl::OkStatus();
  return NotWritable(
      dir, absl::StrCat("missing, and its parent ", parent.string(), " is not writable"), errno);
}

}  // namespace nictune::check
