// SPDX-License-Identifier: Apache-2.0
#include "tests/support/checkout_files.h"

#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {
namespace {

namespace fs = std::filesystem;

bool SkippedFolder(const fs::path& path) {
  std::error_code error;
  return path.filename() == ".git" || path.filename() == "node_modules" ||
         fs::exists(path / "CMakeCache.txt", error);
}

}  // namespace

absl::StatusOr<std::vector<fs::path>> CheckoutFiles(
    const fs::path& root, const std::function<bool(const fs::path&)>& wanted) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory(error) && SkippedFolder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(error) && wanted(it->path())) files.push_back(it->path());
  }
  if (error) return absl::InternalError(absl::StrCat(root.string(), ": ", error.message()));
  return files;
}

}  // namespace nictune::testing_support
