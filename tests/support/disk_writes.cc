// SPDX-License-Identifier: Apache-2.0
#include "tests/support/disk_writes.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {
namespace {

constexpr size_t kBlock = 4096;
constexpr uint64_t kBlocksInFile =
    256;  // rewrite the same 1 MiB: the disk, not space, is the point

}  // namespace

absl::StatusOr<DiskWrites> DiskWrites::Open(const std::string& directory) {
  static std::atomic<int> sequence{0};
  const std::string path =
      absl::StrCat(directory, "/nictune-disk-writes-", getpid(), "-", sequence.fetch_add(1));
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError(absl::StrCat("open O_DIRECT ", path), errno);
  void* block = nullptr;
  if (const int rc = posix_memalign(&block, kBlock, kBlock); rc != 0) {
    close(fd);
    unlink(path.c_str());
    return ErrnoError("posix_memalign 4096", rc);
  }
  std::memset(block, 'd', kBlock);
  return DiskWrites(path, fd, block);
}

DiskWrites::DiskWrites(DiskWrites&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      block_(std::exchange(other.block_, nullptr)) {}

DiskWrites::~DiskWrites() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(path_.c_str());
  }
  std::free(block_);
}

absl::StatusOr<uint64_t> DiskWrites::Write(uint64_t count, absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  uint64_t written = 0;
  while (written < count && absl::Now() < deadline) {
    const off_t offset = static_cast<off_t>((written % kBlocksInFile) * kBlock);
    if (pwrite(fd_, block_, kBlock, offset) != static_cast<ssize_t>(kBlock)) {
      return ErrnoError(absl::StrCat("pwrite O_DIRECT 4096 bytes at ", offset, " of ", path_),
                        errno);
    }
    if (fdatasync(fd_) != 0) return ErrnoError(absl::StrCat("fdatasync ", path_), errno);
    ++written;
  }
  return written;
}

}  // namespace nictune::testing_support
