// SPDX-License-Identifier: Apache-2.0
// Every source file of the checkout names its licence in an SPDX line at its top (LICENSE and
// LICENSES/ hold the texts): a file added without one fails here, before it reaches a package.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/checkout_files.h"

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
  absl::StatusOr<std::vector<fs::path>> sources = testing_support::CheckoutFiles(root, IsSource);
  ASSERT_TRUE(sources.ok()) << sources.status();
  // The checkout has hundreds: a walk that found few did not walk it.
  EXPECT_GT(sources->size(), 500u) << root;
  std::vector<std::string> missing;
  for (const fs::path& path : *sources) {
    if (!HasSpdxLine(path)) missing.push_back(fs::relative(path, root).string());
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

}  // namespace
}  // namespace nictune
