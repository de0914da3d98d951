// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/isolated_cpus.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/procfs/cpu_list.h"
#include "agent/procfs/read_file.h"

namespace nictune::observe {

absl::StatusOr<std::vector<int>> ReadIsolatedCpus(const std::string& sys_root) {
  const std::string path = absl::StrCat(sys_root, "/devices/system/cpu/isolated");
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  if (absl::IsNotFound(text.status())) return std::vector<int>{};
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("read isolated CPUs: ", text.status().message()));
  }
  if (text->find_first_not_of(" \t\n") == std::string::npos) return std::vector<int>{};
  return procfs::ParseCpuList(*text, path);
}

}  // namespace nictune::observe
