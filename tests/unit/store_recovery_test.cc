// SPDX-License-Identifier: Apache-2.0
// A damaged database never stops the agent: garbage, a truncated file or a file that fails
// quick_check is moved aside with its -wal and -shm, and a fresh database is started; a healthy
// database is never moved.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agent/store/database_file.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);

class StoreRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-store-recovery-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/nictune.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void WriteFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    ASSERT_TRUE(out.good()) << path;
  }

  std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::vector<std::string> MovedAside() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".corrupt-") != std::string::npos) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // Opens, proves the store works by a round trip, and closes.
  void ExpectUsableStore() {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->AppendSamples(kT0, {{"nictune_x", {}, 1.0}}).ok());
    absl::StatusOr<HistoryResult> history =
        (*store)->QueryHistory({"nictune_x", {}, kT0, kT0 + absl::Seconds(1)});
    ASSERT_TRUE(history.ok()) << history.status();
    ASSERT_EQ(history->series.size(), 1u);
    EXPECT_EQ(history->series[0].points.size(), 1u);
  }

  std::string dir_;
  std::string path_;
};

TEST_F(StoreRecoveryTest, GarbageIsMovedAsideWithItsCompanionsAndAFreshStoreStarts) {
  const std::string garbage(8192, '\x5a');
  WriteFile(path_, garbage);
  WriteFile(path_ + "-wal", "not a wal");
  WriteFile(path_ + "-shm", "not an index");
  testing::internal::CaptureStderr();
  ExpectUsableStore();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, StartsWith("<3>store: " + path_ + " is damaged"));
  EXPECT_THAT(log, HasSubstr("SQLITE_NOTADB"));

  // Sorted: the database, its -shm (which SQLite rebuilt on open), its -wal.
  const std::vector<std::string> moved = MovedAside();
  ASSERT_EQ(moved.size(), 3u) << ::testing::PrintToString(moved);
  EXPECT_THAT(moved[0], StartsWith("nictune.db.corrupt-"));
  EXPECT_EQ(moved[1], moved[0] + "-shm");
  EXPECT_EQ(moved[2], moved[0] + "-wal");
  EXPECT_TRUE(ReadFile(dir_ + "/" + moved[0]) == garbage) << "kept as it was, for study";
  EXPECT_EQ(ReadFile(dir_ + "/" + moved[2]), "not a wal");
}

TEST_F(StoreRecoveryTest, ATruncatedDatabaseFailsQuickCheckAndIsReplaced) {
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
    std::vector<SeriesSample> many;
    for (int s = 0; s < 3000; ++s) many.push_back({"nictune_x", {{"n", std::to_string(s)}}, 1.0});
    ASSERT_TRUE((*store)->AppendSamples(kT0, many).ok());
  }  // closing checkpoints the WAL into the main file
  ASSERT_FALSE(std::filesystem::exists(path_ + "-wal"));
  const auto size = std::filesystem::file_size(path_);
  ASSERT_GT(size, 64u * 1024u);
  std::filesystem::resize_file(path_, size / 2);

  testing::internal::CaptureStderr();
  ExpectUsableStore();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("is damaged"));
  const std::vector<std::string> moved = MovedAside();
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(std::filesystem::file_size(dir_ + "/" + moved[0]), size / 2);
}

TEST_F(StoreRecoveryTest, AHealthyDatabaseIsKept) {
  ExpectUsableStore();
  testing::internal::CaptureStderr();
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
    absl::StatusOr<HistoryResult> history =
        (*store)->QueryHistory({"nictune_x", {}, kT0, kT0 + absl::Seconds(1)});
    ASSERT_TRUE(history.ok());
    EXPECT_EQ(history->series.size(), 1u);  // the first run's sample is still there
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(MovedAside().empty());
}

TEST_F(StoreRecoveryTest, TwoFailuresInOneSecondKeepBothFiles) {
  WriteFile(path_, std::string(4096, 'a'));
  ASSERT_TRUE(MoveDatabaseAside(path_, kT0).ok());
  WriteFile(path_, std::string(4096, 'b'));
  absl::StatusOr<std::string> second = MoveDatabaseAside(path_, kT0);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, path_ + ".corrupt-1700000040.1");
  EXPECT_EQ(ReadFile(path_ + ".corrupt-1700000040"), std::string(4096, 'a'));
  EXPECT_EQ(ReadFile(*second), std::string(4096, 'b'));
}

TEST_F(StoreRecoveryTest, AnUnusableStateDirectoryIsAnErrorNotALoop) {
  absl::StatusOr<std::unique_ptr<Store>> store =
      Store::Open(dir_ + "/missing/parent", StoreOptions{});
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr(dir_ + "/missing/parent"));
  EXPECT_THAT(store.status().message(), HasSubstr("errno 2"));
}

}  // namespace
}  // namespace nictune::store
