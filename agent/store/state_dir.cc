// SPDX-License-Identifier: Apache-2.0
#include "agent/store/state_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace nictune::store {
absl::Status StateFileError(const char* operation, const std::string& path, int error) {
  const std::string message =
      absl::StrFormat("%s %s: %s (errno %d)", operation, path, std::strerror(error), error);
  if (error == ENOSPC || error == EDQUOT) return absl::ResourceExhaustedError(message);
  if (error == EACCES || error == EPERM || error == EROFS) {
    return absl::PermissionDeniedError(message);
  }
  if (error == ENOENT) return absl::NotFoundError(message);
  return absl::InternalError(message);
}

absl::Status EnsureStateDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0) return absl::OkStatus();
  const int error = errno;
  struct stat info {};
  if (error == EEXIST && ::stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::OkStatus();
  }
  if (error == EEXIST) return StateFileError("use state directory", dir, ENOTDIR);
  return StateFileError("create state directory", dir, error);
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return StateFileError("open state directory", dir, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return StateFileError("fsync state directory", dir, error);
  return absl::OkStatus();
}

}  // namespace nictune::store
