// SPDX-License-Identifier: Apache-2.0
#include "agent/store/state_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "absl/strings/str_cat.h"
#include "agent/store/state_dir.h"

namespace nictune::store {
namespace {

struct flock WholeFile(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  return lock;
}

// "held by PID 1234", or without a PID when the holder is in another PID namespace; nullopt when
// nobody holds the lock.
std::optional<std::string> Holder(int fd) {
  struct flock probe = WholeFile(F_WRLCK);
  if (::fcntl(fd, F_GETLK, &probe) != 0) return "held by another process";
  if (probe.l_type == F_UNLCK) return std::nullopt;
  if (probe.l_pid <= 0) return "held by a process in another PID namespace";
  return absl::StrCat("held by PID ", probe.l_pid);
}

// For people: the file says who holds it. A full disk leaves it empty, which changes nothing.
void WritePid(int fd) {
  const std::string text = absl::StrCat(::getpid(), "\n");
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, text.data(), text.size(), 0);
  }
}

// The one way both Acquire and CheckFree say the lock is taken.
absl::Status LockHeld(const std::string& state_dir, const std::string& path,
                      const std::string& holder) {
  return absl::FailedPreconditionError(absl::StrCat(
      "state directory ", state_dir, " is in use: its lock ", path, " is ", holder,
      " (another nictuned, or a tool it runs); two agents on one journal would undo each "
      "other's changes"));
}

}  // namespace

absl::StatusOr<StateDirLock> StateDirLock::Acquire(const std::string& state_dir) {
  const std::string path = absl::StrCat(state_dir, "/", kLockFileName);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return StateFileError("open lock file", path, errno);
  struct flock lock = WholeFile(F_WRLCK);
  if (::fcntl(fd, F_SETLK, &lock) != 0) {
    const int error = errno;
    if (error == EAGAIN || error == EACCES) {
      // Released between the two calls: still taken a moment ago.
      const std::string holder = Holder(fd).value_or("held by another process");
      ::close(fd);
      return LockHeld(state_dir, path, holder);
    }
    ::close(fd);
    return StateFileError("lock", path, error);
  }
  WritePid(fd);
  return StateDirLock(fd, path);
}

absl::Status StateDirLock::CheckFree(const std::string& state_dir) {
  const std::string path = absl::StrCat(state_dir, "/", kLockFileName);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return errno == ENOENT ? absl::OkStatus() : StateFileError("open lock file", path, errno);
  const std::optional<std::string> holder = Holder(fd);
  ::close(fd);
  if (!holder) return absl::OkStatus();
  return LockHeld(state_dir, path, *holder);
}

StateDirLock::~StateDirLock() {
  // Closing the descriptor releases the lock; the file stays, so the next agent finds it.
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace nictune::store
