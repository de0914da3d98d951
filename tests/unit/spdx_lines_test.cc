// SPDX-License-Identifier: Apache-2.0
// Every source file of the checkout names its licence in an SPDX line at its top (LICENSE and
// LICENSES/ hold the texts): a file added without one fails here, before it reaches a package.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/checkout_files.h"

namespace nictune {
namespace {

namespace fs = std::filesystem;

constexpr int kHeadLines = 5;  // room for a shebang and a line above the SPDX one

// Code, scripts, configuration and the manual pages' frames. Data files are not (recorded kernel
// files, JSON), nor is the Debian changelog's template, whose first line dpkg parses.
bool IsSource(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string ext = path.extension().string();
  static const std::vector<std::string> kExtensions = {
      ".cc", ".h", ".c", ".sh", ".py", ".cmake", ".yml", ".yaml", ".service", ".bash", ".flags"};
  static const std::vector<std::string> kNames = {"CMakeLists.txt", "run", "postinst", "postrm",
                                                  "prerm"};
  return std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end() ||
         std::find(kNames.begin(), kNames.end(), name) != kNames.end() || name.ends_with(".8.in");
}

std::string SpdxExpression(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  constexpr std::string_view kTag = "SPDX-License-Identifier: ";
  for (int i = 0; i < kHeadLines && std::getline(in, line); ++i) {
    const size_t at = line.find(kTag);
    if (at == std::string::npos) continue;
    std::string expression = line.substr(at + kTag.size());
    while (!expression.empty() &&
           (expression.back() == ' ' || expression.back() == '/' || expression.back() == '*')) {
      expression.pop_back();
    }
    return expression;
  }
  return "";
}

std::string Text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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
    if (SpdxExpression(path).empty()) missing.push_back(fs::relative(path, root).string());
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

// What the kernel loads is GPL-2.0-only or BSD-2-Clause, at the user's choice, as libbpf-tools
// does: every BPF program, every header one includes, and the licence the program declares to
// the kernel. Everything else is Apache-2.0.
TEST(SpdxLinesTest, TheBpfProgramsAndTheirHeadersAreDualLicensedAndTheRestApache) {
  const fs::path root = testing_support::SourceDir();
  const fs::path bpf = root / "driver" / "bpf";
  std::set<fs::path> kernel_side;
  const std::regex include(R"re(#include "([a-z_./]+)")re");
  for (const auto& entry : fs::directory_iterator(bpf)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".bpf.c") && !name.ends_with(".bpf.h")) continue;
    kernel_side.insert(entry.path());
    const std::string text = Text(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      const fs::path included = bpf / (*it)[1].str();
      if (fs::exists(included)) kernel_side.insert(included);
    }
    if (name.ends_with(".bpf.c")) {
      EXPECT_NE(text.find(R"(SEC("license") = "Dual BSD/GPL")"), std::string::npos) << name;
    }
  }
  EXPECT_GT(kernel_side.size(), 10u);
  for (const fs::path& path : kernel_side) {
    EXPECT_EQ(SpdxExpression(path), "GPL-2.0-only OR BSD-2-Clause") << path;
  }
  absl::StatusOr<std::vector<fs::path>> sources = testing_support::CheckoutFiles(root, IsSource);
  ASSERT_TRUE(sources.ok()) << sources.status();
  for (const fs::path& path : *sources) {
    if (kernel_side.count(path) > 0) continue;
    EXPECT_EQ(SpdxExpression(path), "Apache-2.0") << fs::relative(path, root);
  }
}

}  // namespace
}  // namespace nictune
