// SPDX-License-Identifier: Apache-2.0
#include "tests/support/privileges.h"

#include <unistd.h>

#include <filesystem>

namespace nictune::testing_support {

std::string WhyNotPrivileged() {
  if (geteuid() != 0) return "needs root (BPF and network namespaces); run the tests as root";
  if (!std::filesystem::exists("/sys/kernel/btf/vmlinux"))
    return "the kernel has no BTF (/sys/kernel/btf/vmlinux is missing)";
  return "";
}

}  // namespace nictune::testing_support
