// SPDX-License-Identifier: Apache-2.0
#include "driver/network_namespaces.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"
#include "driver/file_descriptor.h"

namespace nictune::driver {
namespace {

// Entries of `directory` (without . and ..); none when it cannot be opened.
std::vector<std::string> EntriesOf(const std::string& directory) {
  std::vector<std::string> names;
  DIR* dir = opendir(directory.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

bool IsProcessId(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<uint32_t> NetworkNamespaceInode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("stat ", path, ": ", ErrnoText(errno)));
  }
  return static_cast<uint32_t>(st.st_ino);
}

std::vector<NetworkNamespaceRef> ListNetworkNamespaces(const std::string& proc_root,
                                                       const std::string& run_netns) {
  std::vector<NetworkNamespaceRef> found;
  std::set<uint32_t> seen;
  const auto add = [&](const std::string& path) {
    absl::StatusOr<uint32_t> inode = NetworkNamespaceInode(path);
    if (inode.ok() && seen.insert(*inode).second) found.push_back({*inode, path});
  };
  add(absl::StrCat(proc_root, "/self/ns/net"));
  for (const std::string& name : EntriesOf(run_netns)) add(absl::StrCat(run_netns, "/", name));
  for (const std::string& name : EntriesOf(proc_root)) {
    if (IsProcessId(name)) add(absl::StrCat(proc_root, "/", name, "/ns/net"));
  }
  return found;
}

absl::Status RunInNetworkNamespace(const std::string& path, absl::FunctionRef<void()> fn) {
  absl::Status status;
  std::thread inside([&] {
    FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
      status = absl::ErrnoToStatus(errno, absl::StrCat("open ", path, ": ", ErrnoText(errno)));
      return;
    }
    if (setns(fd.get(), CLONE_NEWNET) != 0) {
      status = absl::ErrnoToStatus(
          errno, absl::StrCat("setns(CLONE_NEWNET) into ", path, ": ", ErrnoText(errno)));
      return;
    }
    fn();
  });
  inside.join();
  return status;
}

absl::StatusOr<std::string> ReadThreadProcNet(const std::string& file, size_t max_bytes) {
  const std::string path = absl::StrCat("/proc/thread-self/net/", file);
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    return absl::UnavailableError(absl::StrCat(path, ": open: ", ErrnoText(errno)));
  }
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd.get(), chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return absl::UnavailableError(absl::StrCat(path, ": read: ", ErrnoText(errno)));
    if (got == 0) return text;
    text.append(chunk, static_cast<size_t>(got));
    if (text.size() > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(path, ": larger than ", max_bytes, " bytes, not read"));
    }
  }
}

}  // namespace nictune::driver
