// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/device_names.h"

#include <net/if.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "driver/kernel_name.h"

namespace nictune::driver::bpf {

uint32_t OwnNetnsInode() {
  struct stat namespace_file;
  if (stat("/proc/self/ns/net", &namespace_file) != 0) return 0;
  return static_cast<uint32_t>(namespace_file.st_ino);
}

std::string DeviceName(int32_t ifindex, uint32_t netns_inode, const std::string& fallback) {
  const bool ours = netns_inode != 0 && netns_inode == OwnNetnsInode();
  // The kernel's own name wins: an ifindex can be reused after the device is gone. A device of
  // another namespace keeps its plain name (an emulated NIC's TAP) unless one of ours has that
  // name too (a container's eth0): its packets are not that device's.
  if (!fallback.empty()) {
    const std::string text = KernelNameText(fallback);
    if (ours || netns_inode == 0 || if_nametoindex(fallback.c_str()) == 0) return text;
    return absl::StrCat(text, "@netns ", netns_inode);
  }
  if (ifindex > 0 && ours) {
    char name[IF_NAMESIZE];
    if (if_indextoname(static_cast<unsigned>(ifindex), name) != nullptr) {
      return KernelNameText(name);
    }
  }
  if (ifindex <= 0) return "";
  return absl::StrCat("ifindex ", ifindex, "@netns ", netns_inode);
}

}  // namespace nictune::driver::bpf
