// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic/named_netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

constexpr char kNetnsRunDir[] = "/run/netns";

// iproute2 makes /run/netns a shared mount so that the namespace mounts show up in every mount
// namespace; a directory that is not a mount point yet is bind-mounted onto itself first.
absl::Status PrepareRunDir() {
  if (mkdir(kNetnsRunDir, 0755) != 0 && errno != EEXIST) {
    return netlink::ErrnoStatus(absl::StrCat("mkdir ", kNetnsRunDir), errno);
  }
  if (mount("", kNetnsRunDir, "none", MS_SHARED | MS_REC, nullptr) == 0) return absl::OkStatus();
  if (errno != EINVAL)
    return netlink::ErrnoStatus(absl::StrCat("mount --make-rshared ", kNetnsRunDir), errno);
  if (mount(kNetnsRunDir, kNetnsRunDir, "none", MS_BIND | MS_REC, nullptr) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("mount --rbind ", kNetnsRunDir), errno);
  }
  if (mount("", kNetnsRunDir, "none", MS_SHARED | MS_REC, nullptr) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("mount --make-rshared ", kNetnsRunDir), errno);
  }
  return absl::OkStatus();
}

bool IsValidName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!allowed) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NamedNetworkNamespace>> NamedNetworkNamespace::CreateAndEnter(
    const std::string& name) {
  if (!IsValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("network namespace name '", name, "': use 1 to 64 of [A-Za-z0-9._-]"));
  }
  if (absl::Status prepared = PrepareRunDir(); !prepared.ok()) return prepared;
  const std::string path = absl::StrCat(kNetnsRunDir, "/", name);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == EEXIST) {
      return absl::AlreadyExistsError(
          absl::StrCat("network namespace ", name, ": ", path, " exists already"));
    }
    return netlink::ErrnoStatus(absl::StrCat("create ", path), errno);
  }
  close(fd);
  if (unshare(CLONE_NEWNET) != 0) {
    const int error_number = errno;
    unlink(path.c_str());
    return netlink::ErrnoStatus(absl::StrCat("unshare(CLONE_NEWNET) for network namespace ", name),
                                error_number);
  }
  if (mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
    const int error_number = errno;
    unlink(path.c_str());
    return netlink::ErrnoStatus(absl::StrCat("bind-mount the new network namespace on ", path),
                                error_number);
  }
  return std::unique_ptr<NamedNetworkNamespace>(new NamedNetworkNamespace(name, path));
}

absl::Status NamedNetworkNamespace::Delete() {
  if (deleted_) return absl::OkStatus();
  deleted_ = true;
  if (umount2(path_.c_str(), MNT_DETACH) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("umount network namespace ", path_), errno);
  }
  if (unlink(path_.c_str()) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("unlink network namespace ", path_), errno);
  }
  return absl::OkStatus();
}

NamedNetworkNamespace::~NamedNetworkNamespace() {
  if (absl::Status deleted = Delete(); !deleted.ok()) {
    std::cerr << "nictune-emulated-nic: " << deleted << "\n";
  }
}

}  // namespace nictune::driver::emulated
