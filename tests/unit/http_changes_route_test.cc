// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/changes over a real store: the change journal as the actuator leaves it (original,
// new value, state, reason, boot id, times) and the agent's events, filtered by since.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/http/changes_route.h"
#include "agent/http/router.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/temp_store.h"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr int64_t kT0Seconds = 1'700'000'000;
const absl::Time kT0 = absl::FromUnixSeconds(kT0Seconds);

class ChangesRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing_support::TempStore> opened =
        testing_support::TempStore::Open("nictune-changes-route-");
    ASSERT_TRUE(opened.ok()) << opened.status();
    temp_.emplace(*std::move(opened));
    store_ = temp_->store.get();
    journal_ = temp_->journal.get();
    ASSERT_TRUE(AddChangesRoute(router_, *journal_, store_).ok());
  }

  // The actuator's two steps for one knob: journal the original, then record the write.
  int64_t JournalAndApply(absl::Time ts, const std::string& knob, int64_t original,
                          int64_t new_value) {
    absl::StatusOr<int64_t> id =
        journal_->JournalOriginal({"boot-a", ts, knob, "veth0", original, "socket drops"});
    EXPECT_TRUE(id.ok()) << id.status();
    if (!id.ok()) return 0;
    EXPECT_TRUE(journal_
                    ->MarkChange({*id, ts + absl::Milliseconds(500), store::ChangeState::kApplied,
                                  new_value, "written"})
                    .ok());
    return *id;
  }

  Response Get(const std::string& query) {
    return router_.Dispatch(Request{.method = "GET", .path = "/api/v1/changes", .query = query});
  }

  std::optional<testing_support::TempStore> temp_;
  store::Store* store_ = nullptr;      // temp_'s
  store::Journal* journal_ = nullptr;  // temp_'s
  Router router_;
};

TEST_F(ChangesRouteTest, JournalAndEventsAsStored) {
  const int64_t first = JournalAndApply(kT0, "rx_usecs", 100, 84);
  ASSERT_TRUE(journal_
                  ->MarkChange({first, kT0 + absl::Seconds(10), store::ChangeState::kRolledBack,
                                100, "drops got worse"})
                  .ok());
  const int64_t second = JournalAndApply(kT0 + absl::Seconds(20), "netdev_budget", 300, 600);
  // Journaled but never written: no new value yet.
  absl::StatusOr<int64_t> third = journal_->JournalOriginal(
      {"boot-a", kT0 + absl::Seconds(30), "rmem_max", "host", 212992, "buffer too small"});
  ASSERT_TRUE(third.ok()) << third.status();
  ASSERT_TRUE(
      store_->AppendEvent({kT0 + absl::Seconds(5), "warning", "rolled back rx_usecs"}).ok());

  const Response response = Get("");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json answer = Json::parse(response.body);
  ASSERT_EQ(answer["changes"].size(), 3u);
  const Json& rolled_back = answer["changes"][0];
  EXPECT_EQ(rolled_back["id"], first);
  EXPECT_EQ(rolled_back["boot_id"], "boot-a");
  EXPECT_EQ(rolled_back["knob"], "rx_usecs");
  EXPECT_EQ(rolled_back["target"], "veth0");
  EXPECT_EQ(rolled_back["original"], 100);
  EXPECT_EQ(rolled_back["new_value"], 100);  // the rollback wrote the original back
  EXPECT_EQ(rolled_back["state"], "rolled_back");
  EXPECT_EQ(rolled_back["pending"], false);
  EXPECT_EQ(rolled_back["reason"], "drops got worse");
  EXPECT_EQ(rolled_back["ts"], kT0Seconds);
  EXPECT_EQ(rolled_back["updated_ts"], kT0Seconds + 10.0);

  const Json& applied = answer["changes"][1];
  EXPECT_EQ(applied["id"], second);
  EXPECT_EQ(applied["state"], "applied");
  EXPECT_EQ(applied["pending"], true);
  EXPECT_EQ(applied["new_value"], 600);
  EXPECT_EQ(applied["updated_ts"], kT0Seconds + 20.5);

  const Json& journaled = answer["changes"][2];
  EXPECT_EQ(journaled["state"], "journaled");
  EXPECT_TRUE(journaled["new_value"].is_null());
  EXPECT_EQ(journaled["original"], 212992);

  ASSERT_EQ(answer["events"].size(), 1u);
  EXPECT_EQ(
      answer["events"][0],
      (Json{{"ts", kT0Seconds + 5.0}, {"level", "warning"}, {"message", "rolled back rx_usecs"}}));
}

TEST_F(ChangesRouteTest, SinceFiltersByJournalTime) {
  JournalAndApply(kT0, "rx_usecs", 100, 84);
  JournalAndApply(kT0 + absl::Seconds(60), "rx_usecs", 84, 64);
  ASSERT_TRUE(store_->AppendEvent({kT0, "info", "early"}).ok());
  ASSERT_TRUE(store_->AppendEvent({kT0 + absl::Seconds(61), "info", "late"}).ok());

  for (const std::string& since :
       {absl::StrCat(kT0Seconds + 30), std::string("2023-11-14T22:13:50Z"),
        absl::StrCat(kT0Seconds + 29, ".5")}) {
    const Response response = Get("since=" + since);
    ASSERT_EQ(response.status, 200) << since << ": " << response.body;
    const Json answer = Json::parse(response.body);
    ASSERT_EQ(answer["changes"].size(), 1u) << since;
    EXPECT_EQ(answer["changes"][0]["new_value"], 64);
    ASSERT_EQ(answer["events"].size(), 1u) << since;
    EXPECT_EQ(answer["events"][0]["message"], "late");
  }
}

TEST_F(ChangesRouteTest, BadParametersAre400) {
  const struct {
    std::string query;
    std::string detail;
  } cases[] = {
      {"since=yesterday", "since=\"yesterday\": expected RFC 3339"},
      {"since=-5", "since=\"-5\""},
      {"since=1.", "since=\"1.\""},
      {"since=1&since=2", "given more than once"},
      {"until=1", "\"until\" is unknown; expected since"},
      {"since", "expected name=value"},
  };
  for (const auto& c : cases) {
    const Response response = Get(c.query);
    EXPECT_EQ(response.status, 400) << c.query;
    const Json error = Json::parse(response.body, nullptr, false);
    EXPECT_EQ(error["error"], "bad_request");
    EXPECT_THAT(error["detail"].get<std::string>(), HasSubstr(c.detail)) << c.query;
  }
}

}  // namespace
}  // namespace nictune::http
