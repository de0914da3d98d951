#include "agent/procfs/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nictune::procfs {
namespace {

absl::Status ErrnoError(const char* op, const std::string& path, int err) {
  const std::string message =
      absl::StrCat(op, " ", path, ": ", std::strerror(err), " (errno ", err, ")");
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
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

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open", path, errno);
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
  }
  ::close(fd);
  return content;
}

absl::Status ParseError(std::string_view path, int line, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(absl::string_view(path.data(), path.size()),
                                                 " line ", line, ": ",
                                                 absl::string_view(what.data(), what.size())));
}

}  // namespace nictune::procfs
