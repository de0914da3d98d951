#include "driver/bpf/device_names.h"

#include <net/if.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace nictune::driver::bpf {

uint32_t OwnNetnsInode() {
  struct stat namespace_file;
  if (stat("/proc/self/ns/net", &namespace_file) != 0) return 0;
  return static_cast<uint32_t>(namespace_file.st_ino);
}

std::string DeviceName(int32_t ifindex, uint32_t netns_inode, const std::string& fallback) {
  // The kernel's own name wins: an ifindex can be reused after the device is gone.
  if (!fallback.empty()) return fallback;
  if (ifindex > 0 && netns_inode != 0 && netns_inode == OwnNetnsInode()) {
    char name[IF_NAMESIZE];
    if (if_indextoname(static_cast<unsigned>(ifindex), name) != nullptr) return name;
  }
  if (ifindex <= 0) return "";
  return absl::StrCat("ifindex ", ifindex, "@netns ", netns_inode);
}

}  // namespace nictune::driver::bpf
