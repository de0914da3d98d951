// SPDX-License-Identifier: Apache-2.0
// The built nictuned with its state directory on a 2 MiB tmpfs that the test then fills: the agent
// keeps serving /metrics, says the store failed (nictune_store_healthy 0, store errors counted, the
// error in /api/v1/status), keeps running; when space is back the store is healthy again, and
// SIGTERM still ends it with exit 0. The tmpfs is unmounted and removed also on failure.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/privileges.h"
#include "tests/support/proc_pid.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/tiny_tmpfs.h"

namespace nictune {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";

// The store's two series as /metrics shows them.
struct StoreMetrics {
  std::optional<double> healthy;
  std::optional<double> errors_total;
};

StoreMetrics ParseStoreMetrics(const std::string& exposition) {
  StoreMetrics metrics;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    double value = 0;
    if (absl::ConsumePrefix(&line, "nictune_store_healthy ") && absl::SimpleAtod(line, &value)) {
      metrics.healthy = value;
    } else if (absl::ConsumePrefix(&line, "nictune_store_errors_total ") &&
               absl::SimpleAtod(line, &value)) {
      metrics.errors_total = value;
    }
  }
  return metrics;
}

// Scrapes /metrics every 100 ms until `wanted` holds for the store's series or `timeout` passes.
// Every scrape must be answered 200 (a failed one is a test failure); returns the last series.
template <typename Predicate>
StoreMetrics ScrapeUntil(uint16_t port, Predicate wanted, absl::Duration timeout, int& scrapes) {
  const absl::Time until = absl::Now() + timeout;
  StoreMetrics last;
  do {
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(5));
    ++scrapes;
    if (!reply.ok()) {
      ADD_FAILURE() << "scrape " << scrapes << ": " << reply.status();
    } else if (reply->status != 200) {
      ADD_FAILURE() << "scrape " << scrapes << ": HTTP " << reply->status << ": " << reply->body;
    } else {
      last = ParseStoreMetrics(reply->body);
      if (wanted(last)) return last;
    }
    absl::SleepFor(absl::Milliseconds(100));
  } while (absl::Now() < until);
  return last;
}

TEST(NictunedDiskFullTest, KeepsServingReportsTheStoreErrorAndRecoversWhenSpaceFrees) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  // Declared before the agent, so it is unmounted after the agent is gone.
  absl::StatusOr<testing_support::TinyTmpfs> disk =
      testing_support::TinyTmpfs::Mount("nictuned-disk-full-", "2m");
  ASSERT_TRUE(disk.ok()) << disk.status();
  const std::string state_dir = disk->dir() + "/state";
  absl::StatusOr<uint16_t> port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  absl::StatusOr<testing_support::BackgroundProgram> agent = testing_support::StartServingNictuned(
      {kNictuned, absl::StrCat("--listen=127.0.0.1:", *port), "--state_dir=" + state_dir,
       "--interval=200ms", "--window=1s", "--socket="},
      *port, absl::Seconds(20));
  ASSERT_TRUE(agent.ok()) << agent.status();
  int scrapes = 0;
  const StoreMetrics healthy = ScrapeUntil(
      *port, [](const StoreMetrics& m) { return m.healthy == 1.0; }, absl::Seconds(5), scrapes);
  ASSERT_EQ(healthy.healthy, 1.0) << "the store was not healthy before the disk filled";
  ASSERT_EQ(healthy.errors_total, 0.0);

  const std::string filler = disk->dir() + "/filler";
  absl::StatusOr<int64_t> filled = testing_support::FillUntilFull(filler);
  ASSERT_TRUE(filled.ok()) << filled.status();
  ASSERT_GT(*filled, 0);

  // Each 200 ms interval appends samples; the pages SQLite already owns run out within seconds.
  const StoreMetrics full = ScrapeUntil(
      *port,
      [](const StoreMetrics& m) { return m.healthy == 0.0 && m.errors_total.value_or(0) > 0; },
      absl::Seconds(15), scrapes);
  EXPECT_EQ(full.healthy, 0.0);
  EXPECT_GT(full.errors_total.value_or(0), 0.0);

  absl::StatusOr<nlohmann::json> status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
  ASSERT_TRUE(status.ok()) << status.status();
  const nlohmann::json& store = (*status)["store"];
  EXPECT_TRUE(store.value("configured", false)) << store.dump();
  EXPECT_FALSE(store.value("healthy", true)) << store.dump();
  EXPECT_GT(store.value("errors", int64_t{0}), 0) << store.dump();
  const std::string last_error = store.value("last_error", "");
  EXPECT_THAT(last_error, HasSubstr(state_dir));
  EXPECT_THAT(last_error, AnyOf(HasSubstr("SQLITE_FULL"), HasSubstr("errno 28"),
                                HasSubstr("No space left on device")));
  EXPECT_FALSE(store["last_error_time"].is_null()) << store.dump();
  // Sampling goes on: only the store failed.
  EXPECT_EQ((*status)["sampling"].value("failed_samples", int64_t{-1}), 0)
      << (*status)["sampling"].dump();
  absl::StatusOr<bool> running = testing_support::StillRunning(agent->pid());
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_TRUE(*running);

  ASSERT_EQ(unlink(filler.c_str()), 0) << filler;
  const StoreMetrics recovered = ScrapeUntil(
      *port, [](const StoreMetrics& m) { return m.healthy == 1.0; }, absl::Seconds(10), scrapes);
  EXPECT_EQ(recovered.healthy, 1.0) << "the store stayed unhealthy after the filler was removed";
  // The count of failures is history: it stays.
  EXPECT_GE(recovered.errors_total.value_or(0), full.errors_total.value_or(0));
  status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE((*status)["store"].value("healthy", false)) << (*status)["store"].dump();

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  const absl::StatusOr<testing_support::ProgramOutput> exited = agent->Wait(absl::Seconds(30));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
  std::cout << scrapes << " scrapes, all answered 200; the disk full after " << *filled
            << " filler bytes; store errors " << full.errors_total.value_or(0) << " while full, "
            << recovered.errors_total.value_or(0) << " after recovery; status said: " << last_error
            << "\n";
}

}  // namespace
}  // namespace nictune
