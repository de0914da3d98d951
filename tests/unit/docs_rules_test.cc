// SPDX-License-Identifier: Apache-2.0
// The documents' own rules: the README stays a short way in for users, every relative link
// reaches a file of the checkout, and no document or comment cites a file outside the repository
// or reads as a development log (issue numbers; commit hashes outside the benchmark tables, where
// each table names the commit it measured).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/checkout_files.h"

namespace nictune {
namespace {

namespace fs = std::filesystem;

constexpr size_t kReadmeMaxLines = 250;

bool IsText(const fs::path& path) {
  const std::string ext = path.extension().string();
  return path.filename() == "CMakeLists.txt" || ext == ".md" || ext == ".cc" || ext == ".h" ||
         ext == ".c" || ext == ".sh" || ext == ".py" || ext == ".cmake" || ext == ".in" ||
         ext == ".service" || ext == ".txt";
}

std::vector<fs::path> CheckoutTexts(const fs::path& root) {
  absl::StatusOr<std::vector<fs::path>> files = testing_support::CheckoutFiles(root, IsText);
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : std::vector<fs::path>{};
}

std::string Contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "file:line: match" for every match of pattern in the file's text.
void CollectMatches(const fs::path& root, const fs::path& path, const std::regex& pattern,
                    std::vector<std::string>& out) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern);
         it != std::sregex_iterator(); ++it) {
      out.push_back(fs::relative(path, root).string() + ":" + std::to_string(number) + ": " +
                    it->str());
    }
  }
}

TEST(DocsRulesTest, TheReadmeIsAtMostTwoHundredFiftyLines) {
  const std::string readme = Contents(fs::path(testing_support::SourceDir()) / "README.md");
  ASSERT_FALSE(readme.empty());
  EXPECT_LE(static_cast<size_t>(std::count(readme.begin(), readme.end(), '\n')),
            kReadmeMaxLines);
}

TEST(DocsRulesTest, NothingCitesAFileOutsideTheRepositoryOrAnIssue) {
  const fs::path root = testing_support::SourceDir();
  const std::regex outside(R"(DESIGN\.md|\.\./shared\b|\bseeds/[0-9]|[Ii]ssues? #?[0-9]+)");
  std::vector<std::string> found;
  const std::vector<fs::path> files = CheckoutTexts(root);
  EXPECT_GT(files.size(), 500u) << root;
  for (const fs::path& path : files) {
    if (path.filename() == "docs_rules_test.cc") continue;  // its own patterns
    CollectMatches(root, path, outside, found);
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

TEST(DocsRulesTest, DocumentsQuoteNoCommitsOutsideTheBenchmarkTables) {
  const fs::path root = testing_support::SourceDir();
  // Seven or more hex digits holding a digit and a letter: how a commit is quoted.
  const std::regex commit(R"(\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b)");
  std::vector<std::string> found;
  for (const fs::path& path : CheckoutTexts(root)) {
    if (path.extension() != ".md" || path == root / "docs" / "benchmarks.md") continue;
    CollectMatches(root, path, commit, found);
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

TEST(DocsRulesTest, EveryRelativeLinkReachesAFileOfTheCheckout) {
  const fs::path root = fs::weakly_canonical(testing_support::SourceDir());
  const std::regex link(R"(\]\(([^)#\s]+)(#[^)\s]*)?\))");
  std::vector<std::string> broken;
  int links = 0;
  for (const fs::path& path : CheckoutTexts(root)) {
    if (path.extension() != ".md") continue;
    const std::string text = Contents(path);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link);
         it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1].str();
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      ++links;
      const fs::path resolved = fs::weakly_canonical(path.parent_path() / target);
      const std::string relative = fs::relative(resolved, root).string();
      std::error_code error;
      if (relative.rfind("..", 0) == 0 || !fs::exists(resolved, error)) {
        broken.push_back(fs::relative(path, root).string() + ": " + target);
      }
    }
  }
  EXPECT_GT(links, 50);
  EXPECT_THAT(broken, ::testing::IsEmpty());
}

}  // namespace
}  // namespace nictune
