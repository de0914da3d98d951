// SPDX-License-Identifier: Apache-2.0
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/napi_pollers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::agent {
namespace {

using ::testing::HasSubstr;

// netlink's pollers, one per pid (a combined queue's rx side before its tx queue's; an instance
// no queue is linked to, as veth's, with none), an emulated NIC's per-queue pollers from its
// counters, and every other namespace's by name; a binding polled in softirq has none.
TEST(NapiPollersOfTest, OnePerPidWithTheRxQueueItPolls) {
  collect::QueueMap map;
  map.bindings = {
      {.device = "eth0",
       .queue = 3,
       .kind = collect::QueueKind::kTx,
       .napi_id = 9001,
       .napi_thread = 812},
      {.device = "eth0",
       .queue = 0,
       .kind = collect::QueueKind::kRx,
       .napi_id = 9001,
       .napi_thread = 812},
      {.device = "eth0", .queue = 1, .kind = collect::QueueKind::kCombined, .napi_id = 9002},
  };
  model::EmulatedNicReading nic{.device = "emu0"};
  nic.queues.resize(2);
  nic.queues[0].napi_thread = 900;
  nic.queues[1].napi_thread = 0;  // not known
  // The binding's instance listed again (it keeps its queue), and veth's, which no queue names.
  map.napi_threads = {{.device = "eth0", .napi_id = 9001, .pid = 812},
                      {.device = "veth1", .napi_id = 9100, .pid = 850}};
  // The emulated NIC's TAP lives in another namespace: its poller is found by name too, and the
  // NIC's counters say more of it. A container's veth's poller is known by its name alone.
  map.other_napi_threads = {900, 950};
  const std::vector<model::NapiPoller> pollers = NapiPollersOf(map, {nic});
  ASSERT_EQ(pollers.size(), 4u);
  EXPECT_EQ(pollers[0].pid, 812u);
  EXPECT_EQ(pollers[0].device, "eth0");
  EXPECT_EQ(pollers[0].queue, 0);
  EXPECT_EQ(pollers[0].napi_id, 9001u);
  EXPECT_EQ(pollers[1].pid, 850u);
  EXPECT_EQ(pollers[1].device, "veth1");
  EXPECT_EQ(pollers[1].queue, -1);
  EXPECT_EQ(pollers[1].napi_id, 9100u);
  EXPECT_EQ(pollers[2].pid, 900u);
  EXPECT_EQ(pollers[2].device, "emu0");
  EXPECT_EQ(pollers[2].queue, 0);
  EXPECT_EQ(pollers[2].napi_id, std::nullopt);
  EXPECT_FALSE(pollers[2].other_namespace);
  EXPECT_EQ(pollers[3].pid, 950u);
  EXPECT_TRUE(pollers[3].other_namespace);
  EXPECT_EQ(pollers[3].device, "");
  EXPECT_EQ(pollers[3].napi_id, std::nullopt);
}

void WriteFile(const std::string& path, const std::string& text) {
  ASSERT_EQ(::mkdir(path.substr(0, path.rfind('/')).c_str(), 0755), 0) << path;
  std::ofstream(path) << text;
}

// Each watched poller is read at every snapshot; one that is gone (its device went, or threading
// was switched off) is left out and counted, one whose task is not named napi/... is left out and
// named, a damaged file is the source's error, and the snapshot goes on.
TEST(SnapshotCollectorPollersTest, ReadsEachWatchedPollerAndSaysWhatItCouldNot) {
  absl::StatusOr<testing_support::TempDir> proc =
      testing_support::TempDir::Create("nictune_pollers_");
  ASSERT_TRUE(proc.ok()) << proc.status();
  WriteFile(absl::StrCat(proc->path(), "/700/schedstat"), "1500000000 20 30\n");
  WriteFile(absl::StrCat(proc->path(), "/701/schedstat"), "damaged\n");
  WriteFile(absl::StrCat(proc->path(), "/703/schedstat"), "9000000 1 1\n");
  std::ofstream(absl::StrCat(proc->path(), "/700/comm")) << "napi/eth0-8193\n";
  std::ofstream(absl::StrCat(proc->path(), "/701/comm")) << "napi/eth0-8194\n";
  std::ofstream(absl::StrCat(proc->path(), "/703/comm")) << "sshd\n";
  collect::SnapshotCollector collector({.proc = proc->path(), .sys = proc->path()}, nullptr,
                                       "unit test: no probes");
  model::Snapshot unwatched = collector.Collect();
  EXPECT_TRUE(unwatched.napi_pollers.empty());
  for (const model::SourceState& s : unwatched.sources) EXPECT_NE(s.name, "napi pollers");

  collector.WatchNapiPollers({{.pid = 700, .device = "eth0", .queue = 0},
                              {.pid = 701, .device = "eth0", .queue = 1},
                              {.pid = 702, .device = "eth0", .queue = 2},
                              {.pid = 703, .device = "eth0", .queue = 3}});
  const model::Snapshot s = collector.Collect();
  ASSERT_EQ(s.napi_pollers.size(), 1u);
  EXPECT_EQ(s.napi_pollers[0].poller.pid, 700u);
  EXPECT_EQ(s.napi_pollers[0].poller.queue, 0);
  EXPECT_EQ(s.napi_pollers[0].run_ns, 1500000000u);
  const model::SourceState* state = nullptr;
  for (const model::SourceState& source : s.sources) {
    if (source.name == "napi pollers") state = &source;
  }
  ASSERT_NE(state, nullptr);
  EXPECT_TRUE(state->in_use);
  EXPECT_THAT(state->detail, HasSubstr("1 of 4 read, 1 gone"));
  EXPECT_THAT(state->detail, HasSubstr("/701/schedstat line 1"));
  // A pid of another pid namespace, or one reused, names another task: its time is not a poller's.
  EXPECT_THAT(state->detail, HasSubstr("not NAPI pollers (another pid namespace?): pid 703"));
}

}  // namespace
}  // namespace nictune::agent
