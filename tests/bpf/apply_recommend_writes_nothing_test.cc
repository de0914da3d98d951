// SPDX-License-Identifier: Apache-2.0
// In recommend mode under load, every knob's value is byte-identical before and after. The real
// nictuned runs inside a test host's namespace (so it sees that host's veth as its devices) with
// UDP traffic into the veth for several tuner windows; every knob the tuner can name for that
// device and namespace, and the host-wide sysctls, are read as bytes before and after, and the
// change journal must hold no row.
#include <signal.h>
#include <sqlite3.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/unix_socket_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";

// The net.core budget and weight sysctls exist only in the initial namespace: read the host's.
std::string SnapshotKnobs(const std::string& netns, const std::string& device) {
  std::vector<std::string> device_files;
  for (const char* knob :
       {"napi_defer_hard_irqs", "gro_flush_timeout", "threaded", "tx_queue_len", "mtu"}) {
    device_files.push_back(absl::StrCat("/sys/class/net/", device, "/", knob));
  }
  absl::StatusOr<std::string> host =
      testing_support::ReadFilesIn("", testing_support::TunedHostSysctls());
  absl::StatusOr<std::string> device_text = testing_support::ReadFilesIn(netns, device_files);
  EXPECT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(device_text.ok()) << device_text.status();
  return (host.ok() ? *host : "") + (device_text.ok() ? *device_text : "");
}

int64_t CountJournalRows(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return -1;
  }
  sqlite3_stmt* statement = nullptr;
  int64_t rows = -1;
  if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM changes", -1, &statement, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    rows = sqlite3_column_int64(statement, 0);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

TEST(ApplyRecommendTest, RecommendModeUnderLoadLeavesEveryKnobByteIdentical) {
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty())
    GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<testing_support::TempDir> dir = testing_support::TempDir::Create("nictune_rec_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string netns = (*hosts)->b().name();
  const std::string device = (*hosts)->device_b();

  const std::string before = SnapshotKnobs(netns, device);
  ASSERT_THAT(before, ::testing::HasSubstr("napi_defer_hard_irqs"));
  ASSERT_THAT(before, ::testing::HasSubstr("/proc/sys/net/core/netdev_budget:"));

  const std::string socket = dir->path() + "/nictune.sock";
  absl::StatusOr<testing_support::BackgroundProgram> agent =
      testing_support::BackgroundProgram::Start({"ip", "netns", "exec", netns, kNictuned,
                                                 "--mode=recommend", "--state_dir=" + dir->path(),
                                                 "--listen=", "--socket=" + socket,
                                                 "--interval=100ms", "--window=500ms"});
  ASSERT_TRUE(agent.ok()) << agent.status();

  // About 3 s of traffic into the veth while the agent closes its windows.
  testing_support::UdpReceiverOptions receiver;
  receiver.run_time = absl::Seconds(4);
  testing_support::UdpSenderOptions sender;
  sender.packets = 150000;
  sender.packets_per_second = 50000;
  sender.max_duration = absl::Seconds(3);
  absl::StatusOr<testing_support::UdpFlow> flow =
      testing_support::UdpFlow::Open(**hosts, receiver, sender);
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<testing_support::UdpFlowResult> ran = flow->Run();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_GT(ran->sent.sent, 10000u);

  // The agent did run its tuner over several windows (or the comparison would prove nothing): a
  // host that holds the agent off its CPU may need a few seconds more for them.
  absl::StatusOr<http::Response> status;
  nlohmann::json body;
  for (const absl::Time deadline = absl::Now() + absl::Seconds(10);;) {
    status = http::Call(socket, "GET", "/api/v1/status", "", absl::Seconds(5));
    ASSERT_TRUE(status.ok()) << status.status();
    body = nlohmann::json::parse(status->body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << status->body;
    if (body["sampling"]["windows"].get<int64_t>() >= 4 || absl::Now() > deadline) break;
    absl::SleepFor(absl::Milliseconds(250));
  }
  EXPECT_GE(body["sampling"]["windows"].get<int64_t>(), 4) << status->body;
  EXPECT_EQ(body["mode"], "recommend") << status->body;

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<testing_support::ProgramOutput> exited = agent->Wait(absl::Seconds(10));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;

  // The host's sysctls and the device's files, each line prefixed by its path.
  EXPECT_EQ(SnapshotKnobs(netns, device), before);
  EXPECT_EQ(CountJournalRows(dir->path() + "/journal.db"), 0);
}

}  // namespace
}  // namespace nictune
