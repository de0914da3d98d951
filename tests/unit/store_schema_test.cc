// SPDX-License-Identifier: Apache-2.0
// Schema versioning: a fresh database is at the last version with every table, migrations run in
// order exactly once, and a database from a newer nictuned is refused, not misread.
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "agent/store/schema.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

using ::testing::HasSubstr;

class StoreSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-store-schema-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/nictune.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Connection Raw() {
    absl::StatusOr<Connection> c =
        Connection::Open(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 1000);
    EXPECT_TRUE(c.ok()) << c.status();
    return std::move(*c);
  }

  int64_t UserVersion(Connection& c) {
    return c.QueryInt64("PRAGMA user_version", "test").value().value_or(-1);
  }

  std::string dir_;
  std::string path_;
};

TEST_F(StoreSchemaTest, FreshDatabaseIsAtTheLatestVersionWithWalAndEveryTable) {
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
  }
  Connection c = Raw();
  EXPECT_EQ(UserVersion(c), static_cast<int64_t>(SchemaMigrations().size()));
  EXPECT_EQ(c.QueryText("PRAGMA journal_mode", "test").value(), "wal");
  EXPECT_EQ(c.QueryInt64("PRAGMA auto_vacuum", "test").value(), 2);  // incremental
  for (const char* table :
       {"series", "samples", "downsample_progress", "recommendations", "changes", "events"}) {
    EXPECT_EQ(c.QueryInt64(std::string("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                       "AND name = '") +
                               table + "'",
                           "test")
                  .value(),
              1)
        << table;
  }
}

TEST_F(StoreSchemaTest, AFakeSecondMigrationRunsOnceOnTopOfTheFirstAndKeepsTheData) {
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->AppendEvent({absl::FromUnixSeconds(100), "info", "before v2"}).ok());
  }
  std::vector<Migration> migrations = SchemaMigrations();
  ASSERT_EQ(migrations.size(), 1u);
  migrations.push_back({2, "event source column",
                        "ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'agent';"
                        "CREATE TABLE migration_runs (n INTEGER);"
                        "INSERT INTO migration_runs VALUES (1);"});
  Connection c = Raw();
  ASSERT_TRUE(ApplyMigrations(c, migrations).ok());
  EXPECT_EQ(UserVersion(c), 2);
  // Applying again is a no-op: the migration's insert must not run twice.
  ASSERT_TRUE(ApplyMigrations(c, migrations).ok());
  EXPECT_EQ(c.QueryInt64("SELECT count(*) FROM migration_runs", "test").value(), 1);
  EXPECT_EQ(c.QueryText("SELECT message || '/' || source FROM events", "test").value(),
            "before v2/agent");
}

TEST_F(StoreSchemaTest, AFailingMigrationLeavesTheVersionAndTablesAsTheyWere) {
  { ASSERT_TRUE(Store::Open(dir_, StoreOptions{}).ok()); }
  std::vector<Migration> migrations = SchemaMigrations();
  migrations.push_back({2, "half good", "CREATE TABLE half (x); SELECT * FROM no_such_table;"});
  Connection c = Raw();
  absl::Status applied = ApplyMigrations(c, migrations);
  EXPECT_FALSE(applied.ok());
  EXPECT_THAT(applied.message(), HasSubstr("migrate schema to version 2 (half good)"));
  EXPECT_THAT(applied.message(), HasSubstr(path_));
  EXPECT_THAT(applied.message(), HasSubstr("no such table"));
  EXPECT_EQ(UserVersion(c), 1);
  EXPECT_EQ(c.QueryInt64("SELECT count(*) FROM sqlite_master WHERE name = 'half'", "test").value(),
            0);
}

TEST_F(StoreSchemaTest, ADatabaseFromANewerReleaseIsRefused) {
  { ASSERT_TRUE(Store::Open(dir_, StoreOptions{}).ok()); }
  {
    Connection c = Raw();
    ASSERT_TRUE(c.Exec("PRAGMA user_version = 7", "test").ok());
  }
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, StoreOptions{});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("version 7"));
  // Refused, not moved aside: the file belongs to the newer release.
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(StoreSchemaTest, MigrationsOutOfOrderAreRejected) {
  Connection c = Raw();
  absl::Status applied = ApplyMigrations(c, {{2, "skips one", "SELECT 1;"}});
  EXPECT_EQ(applied.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(applied.message(), HasSubstr("expected 1"));
}

TEST_F(StoreSchemaTest, InvalidOptionsNameTheField) {
  StoreOptions options;
  options.resolutions = {{absl::Seconds(1), absl::Hours(1)},
                         {absl::Seconds(15), absl::Hours(1)},
                         {absl::Seconds(20), absl::Hours(1)}};
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(), HasSubstr("resolution 2 step 20s"));
}

}  // namespace
}  // namespace nictune::store
