// SPDX-License-Identifier: Apache-2.0
// One agent per state directory. The lock is a POSIX record lock on state_dir/nictuned.lock,
// held for the life of the process and dropped by the kernel when the process ends however it
// ends, so a crash never leaves a stale lock behind. A second agent learns the holder's PID from
// the kernel (F_GETLK), not from the file's text, which is only there for people.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nictune::store {

inline constexpr const char* kLockFileName = "nictuned.lock";

class StateDirLock {
 public:
  // Takes the lock without waiting. FailedPrecondition naming the holder's PID when another
  // process holds it; other errors (a read-only or missing directory) name the file and errno.
  static absl::StatusOr<StateDirLock> Acquire(const std::string& state_dir);

  // Whether Acquire would find the lock held, without creating or taking it (nictuned --check):
  // FailedPrecondition naming the holder as Acquire does; OK when it is free or not there yet.
  static absl::Status CheckFree(const std::string& state_dir);

  StateDirLock(StateDirLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
  }
  StateDirLock& operator=(StateDirLock&&) = delete;
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;
  ~StateDirLock();

  const std::string& path() const { return path_; }

 private:
  StateDirLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_ = -1;
  std::string path_;
};

}  // namespace nictune::store
