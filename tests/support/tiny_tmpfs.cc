// SPDX-License-Identifier: Apache-2.0
#include "tests/support/tiny_tmpfs.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {

absl::StatusOr<TinyTmpfs> TinyTmpfs::Mount(const std::string& prefix, const std::string& size) {
  const std::string pattern = absl::StrCat("/tmp/", prefix, "XXXXXX");
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (mkdtemp(path.data()) == nullptr) return ErrnoError(absl::StrCat("mkdtemp ", pattern), errno);
  // Owns the directory from here on, so a failed mount still removes it.
  TinyTmpfs tmpfs(std::string(path.data()), /*mounted=*/false);
  const std::string options = absl::StrCat("size=", size, ",mode=0700");
  if (mount("tmpfs", tmpfs.dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            options.c_str()) != 0) {
    return ErrnoError(absl::StrCat("mount tmpfs -o ", options, " on ", tmpfs.dir_), errno);
  }
  tmpfs.mounted_ = true;
  return tmpfs;
}

TinyTmpfs::TinyTmpfs(TinyTmpfs&& other) noexcept
    : dir_(std::exchange(other.dir_, std::string())),
      mounted_(std::exchange(other.mounted_, false)) {}

TinyTmpfs::~TinyTmpfs() {
  if (dir_.empty()) return;
  // Nothing useful to do about a mount or directory that will not go.
  if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  rmdir(dir_.c_str());
}

absl::StatusOr<int64_t> FillUntilFull(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError(absl::StrCat("open ", path), errno);
  const std::vector<char> block(4096, 'x');
  int64_t written = 0;
  for (;;) {
    const ssize_t n = write(fd, block.data(), block.size());
    if (n > 0) {
      written += n;
      continue;
    }
    const int error_number = errno;
    if (n < 0 && error_number == EINTR) continue;
    close(fd);
    if (n < 0 && error_number != ENOSPC) {
      return ErrnoError(absl::StrCat("write ", path, " after ", written, " bytes"), error_number);
    }
    return written;
  }
}

}  // namespace nictune::testing_support
