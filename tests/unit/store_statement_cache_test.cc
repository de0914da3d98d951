// SPDX-License-Identifier: Apache-2.0
// Prepared statements kept for reuse: a statement prepared again after use runs with fresh
// bindings and no rows of its last run, one still out when its connection closes is finalized
// without harm, and a closed connection refuses to prepare.
#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

#include "agent/store/sqlite_connection.h"
#include "gtest/gtest.h"

namespace nictune::store {
namespace {

class StatementCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nictune-statement-cache-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    absl::StatusOr<Connection> opened =
        Connection::Open(dir_ + "/t.db", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 1000);
    ASSERT_TRUE(opened.ok()) << opened.status();
    connection_.emplace(*std::move(opened));
    ASSERT_TRUE(
        connection_
            ->Exec("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)", "create")
            .ok());
  }
  void TearDown() override {
    connection_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Rows of t above `above`, counted by stepping a statement that may be a kept one.
  int CountAbove(int64_t above) {
    absl::StatusOr<Statement> select =
        connection_->Prepare("SELECT n FROM t WHERE n > ?1", "count");
    EXPECT_TRUE(select.ok()) << select.status();
    if (!select.ok()) return -1;
    select->BindInt64(1, above);
    int rows = 0;
    for (absl::StatusOr<bool> row = select->Step(); row.ok() && *row; row = select->Step()) ++rows;
    return rows;
  }

  std::string dir_;
  std::optional<Connection> connection_;
};

TEST_F(StatementCacheTest, AStatementPreparedAgainRunsAfreshWithItsNewBindings) {
  EXPECT_EQ(CountAbove(0), 3);
  EXPECT_EQ(CountAbove(2), 1);
  EXPECT_EQ(CountAbove(0), 3);
  // Left mid-run: the next use starts from the first row, and the table stays writable.
  {
    absl::StatusOr<Statement> select = connection_->Prepare("SELECT n FROM t WHERE n > ?1", "x");
    ASSERT_TRUE(select.ok());
    select->BindInt64(1, 0);
    ASSERT_TRUE(*select->Step());
  }
  EXPECT_TRUE(connection_->Exec("INSERT INTO t VALUES (4)", "insert").ok());
  EXPECT_EQ(CountAbove(0), 4);
}

TEST_F(StatementCacheTest, AStatementOutlivingItsConnectionIsFinalizedAndAClosedOneRefuses) {
  absl::StatusOr<Statement> select = connection_->Prepare("SELECT count(*) FROM t", "count");
  ASSERT_TRUE(select.ok());
  Connection moved = *std::move(connection_);
  absl::StatusOr<Statement> from_moved = connection_->Prepare("SELECT 1", "select");
  EXPECT_EQ(from_moved.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(*select->Step());
  EXPECT_EQ(select->ColumnInt64(0), 3);
  { Connection closing = std::move(moved); }
  // The statement is destroyed after its connection: finalized, not kept by a cache that is gone.
}

}  // namespace
}  // namespace nictune::store
