// SPDX-License-Identifier: Apache-2.0
// A small tmpfs a test mounts on its own temporary directory to run a program out of disk space,
// and a filler that takes what is left of it. Needs root (mount); unmounted and removed when the
// owner goes away, also when the test fails half way.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

class TinyTmpfs {
 public:
  // mkdtemp("/tmp/<prefix>XXXXXX") and mount a tmpfs of `size` ("1m", "2m") on it.
  static absl::StatusOr<TinyTmpfs> Mount(const std::string& prefix, const std::string& size);
  TinyTmpfs(TinyTmpfs&& other) noexcept;
  TinyTmpfs& operator=(TinyTmpfs&&) = delete;
  TinyTmpfs(const TinyTmpfs&) = delete;
  TinyTmpfs& operator=(const TinyTmpfs&) = delete;
  // Lazy unmount (MNT_DETACH): a program still holding files in it cannot keep it mounted.
  ~TinyTmpfs();

  const std::string& dir() const { return dir_; }

 private:
  TinyTmpfs(std::string dir, bool mounted) : dir_(std::move(dir)), mounted_(mounted) {}

  std::string dir_;  // empty once moved from
  bool mounted_ = false;
};

// Writes `path` until the file system says ENOSPC and returns the bytes written; fails on any
// other error, naming the file and the errno.
absl::StatusOr<int64_t> FillUntilFull(const std::string& path);

}  // namespace nictune::testing_support
