// SPDX-License-Identifier: Apache-2.0
#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {

absl::StatusOr<TempDir> TempDir::Create(const std::string& prefix) {
  const std::string pattern = absl::StrCat("/tmp/", prefix, "XXXXXX");
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (mkdtemp(path.data()) == nullptr) {
    const int error_number = errno;
    return absl::InternalError(absl::StrCat("mkdtemp ", pattern, ": ", std::strerror(error_number),
                                            " (errno ", error_number, ")"));
  }
  return TempDir(std::string(path.data()));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;  // nothing useful to do about a directory that will not go
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace nictune::testing_support
