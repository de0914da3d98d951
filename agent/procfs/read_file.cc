// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "driver/kernel_name.h"

namespace nictune::procfs {
namespace {

absl::Status ErrnoError(const char* op, const std::string& path, int err) {
  const std::string message = absl::StrCat(op, " ", driver::KernelNameText(path), ": ",
                                           std::strerror(err), " (errno ", err, ")");
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case ESRCH:  // a /proc/PID file whose task exited between its open and its read
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case EOPNOTSUPP:
      return absl::UnimplementedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: a FIFO (or a device) put where a kernel file belongs must not hang the reader
  // in open() or read(); it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ErrnoError("open", path, errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError("fstat", path, err);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("read ", driver::KernelNameText(path), ": not a regular file"));
  }
  std::string content;
  char buffer[16384];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoError("read", path, err);
    }
    content.append(buffer, static_cast<size_t>(n));
    if (content.size() > max_bytes) {
      ::close(fd);
      return absl::ResourceExhaustedError(absl::StrCat("read ", driver::KernelNameText(path),
                                                       ": larger than ", max_bytes, " bytes"));
    }
  }
  ::close(fd);
  return content;
}

absl::Status ParseError(std::string_view path, int line, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      driver::KernelNameText(absl::string_view(path.data(), path.size())), " line ", line, ": ",
      driver::KernelNameText(absl::string_view(what.data(), what.size()))));
}

}  // namespace nictune::procfs
