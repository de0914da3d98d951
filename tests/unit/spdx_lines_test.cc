// SPDX-License-Identifier: Apache-2.0
// Every source file of the checkout names its licence in an SPDX line at its top (LICENSE and
// LICENSES/ hold the texts): a file added without one fails here, before it reaches a package.
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune {
namespace {

namespace fs = std::filesystem;

constexpr int kHeadLines = 5;  // room for a shebang and a line above the SPDX one

bool IsSource(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string ext = path.extension().string();
  return name == "CMakeLists.txt" || ext == ".cc" || ext == ".h" || ext == ".c" || ext == ".sh" ||
         ext == ".py" || ext == ".cmake";
}

// .git, and build folders (any folder holding a CMakeCache.txt) wherever they are.
bool SkippedFolder(const fs::path& path) {
  std::error_code error;
  return path.filename() == ".git" || fs::exists(path / "CMakeCache.txt", error);
}

bool HasSpdxLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < kHeadLines && std::getline(in, line); ++i) {
    if (line.find("SPDX-License-Identifier: ") != std::string::npos) return true;
  }
  return false;
}

TEST(SpdxLinesTest, EverySourceFileHasOneInItsFirstLines) {
  const fs::path root = testing_support::SourceDir();
  ASSERT_FALSE(root.empty());
  std::vector<std::string> missing;
  int checked = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory(error) && SkippedFolder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(error) || !IsSource(it->path())) continue;
    ++checked;
    if (!HasSpdxLine(it->path())) missing.push_back(fs::relative(it->path(), root).string());
  }
  ASSERT_FALSE(error) << root << ": " << error.message();
  // The checkout has hundreds: a walk that found few did not walk it.
  EXPECT_GT(checked, 500) << root;
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

}  // namespace
}  // namespace nictune
