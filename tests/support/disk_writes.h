// SPDX-License-Identifier: Apache-2.0
// Disk I/O that raises the block device's completion interrupt: O_DIRECT writes, each followed by
// fdatasync, on a file the test creates and deletes (under /var/tmp, which is on a real disk
// where /tmp may be tmpfs).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

class DiskWrites {
 public:
  // Creates (O_DIRECT, O_EXCL) a scratch file in `directory`.
  static absl::StatusOr<DiskWrites> Open(const std::string& directory = "/var/tmp");
  DiskWrites(DiskWrites&& other) noexcept;
  DiskWrites& operator=(DiskWrites&&) = delete;
  DiskWrites(const DiskWrites&) = delete;
  DiskWrites& operator=(const DiskWrites&) = delete;
  ~DiskWrites();  // closes and unlinks the file

  // Writes 4 KiB blocks (each synced) until `count` were written or `limit` passed; returns the
  // number written.
  absl::StatusOr<uint64_t> Write(uint64_t count, absl::Duration limit);

 private:
  DiskWrites(std::string path, int fd, void* block)
      : path_(std::move(path)), fd_(fd), block_(block) {}
  std::string path_;
  int fd_ = -1;
  void* block_ = nullptr;  // 4 KiB aligned, as O_DIRECT requires
};

}  // namespace nictune::testing_support
