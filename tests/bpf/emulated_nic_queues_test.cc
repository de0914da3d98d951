// SPDX-License-Identifier: Apache-2.0
// A four-queue emulated NIC under the real nictuned: each queue is a NAPI instance of its own
// (its own poller thread, a napis entry of its own in the window), the window has a row per
// queue, and each row's interrupt rate is the one the NIC counts for that queue, sampled by the
// test over the same interval. The queues carry flows at different rates, so rows that were mixed
// up would not match.
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/emulated/counters.h"
#include "driver/emulated/counters_reader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_nic_process.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/slow_receiver.h"

namespace nictune {
namespace {

using driver::emulated::EmulatedNicCounters;
using driver::emulated::EmulatedNicCountersReader;
using testing_support::EmulatedNicProcess;
using testing_support::SlowReceiver;

constexpr size_t kQueues = 4;
constexpr double kRatesPps[kQueues] = {300, 1000, 2000, 4000};
constexpr uint16_t kFirstPort = 9000;
constexpr char kAddress[] = "10.77.0.1";
constexpr absl::Duration kInterval = absl::Milliseconds(500);
constexpr int kIntervalsCompared = 3;

std::string Flows() {
  std::string flows;
  for (size_t queue = 0; queue < kQueues; ++queue) {
    absl::StrAppend(&flows, queue == 0 ? "" : ";", "port=", kFirstPort + queue,
                    ",pps=", kRatesPps[queue], ",bytes=200,queue=", queue);
  }
  return flows;
}

absl::StatusOr<std::vector<EmulatedNicCounters>> QueueCounters(const std::string& socket) {
  std::vector<EmulatedNicCounters> queues;
  for (size_t queue = 0; queue < kQueues; ++queue) {
    absl::StatusOr<EmulatedNicCounters> counters =
        EmulatedNicCountersReader(socket).ReadQueue(queue);
    if (!counters.ok()) return counters.status();
    queues.push_back(*counters);
  }
  return queues;
}

// The snapshot of the interval after the one ending at `after_end_ns`.
absl::StatusOr<nlohmann::json> NextSnapshot(uint16_t port, int64_t after_end_ns) {
  return testing_support::NextSnapshot(port, after_end_ns, 4 * kInterval);
}

std::vector<nlohmann::json> Entries(const nlohmann::json& snapshot, const std::string& array,
                                    const std::string& key, const std::string& device) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& entry : snapshot.value(array, nlohmann::json::array())) {
    if (entry.value(key, "").starts_with(device)) found.push_back(entry);
  }
  return found;
}

TEST(EmulatedNicQueuesTest, FourQueuesAreFourNapiInstancesAndFourRowsWithTheNicsInterrupts) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  const std::string device = absl::StrCat("emq", getpid() % 100000);
  auto nic = EmulatedNicProcess::Start(
      absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      {"--device=" + device, absl::StrCat("--address=", kAddress, "/24"), "--flows=" + Flows(),
       absl::StrCat("--queues=", kQueues), "--rx_usecs=1000", "--cpu=1", "--fifo_priority=10",
       "--duration=60s"});
  ASSERT_TRUE(nic.ok()) << nic.status();
  std::vector<std::unique_ptr<SlowReceiver>> receivers;
  for (size_t queue = 0; queue < kQueues; ++queue) {
    auto receiver =
        SlowReceiver::Start((*nic)->netns(), {.bind_address = kAddress,
                                              .port = static_cast<uint16_t>(kFirstPort + queue),
                                              .rcvbuf_bytes = 1 << 20,
                                              .run_time = absl::Seconds(60)});
    ASSERT_TRUE(receiver.ok()) << receiver.status();
    receivers.push_back(*std::move(receiver));
  }
  auto first = QueueCounters((*nic)->control_socket());
  ASSERT_TRUE(first.ok()) << first.status();
  std::set<uint32_t> threads;
  for (const EmulatedNicCounters& queue : *first) {
    threads.insert(static_cast<uint32_t>(queue.napi_thread));
  }
  ASSERT_EQ(threads.size(), kQueues) << "a NAPI thread of its own for each queue";

  auto agent = testing_support::StartLoopbackAgent(
      "nictune_emulated_queues_",
      {"--mode=observe", absl::StrCat("--emulated_nic=", device, "=", (*nic)->control_socket()),
       absl::StrCat("--interval=", absl::FormatDuration(kInterval)), "--window=2s"},
      testing_support::NictunedReady::kFirstSample);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const uint16_t port = agent->port;

  auto snapshot = NextSnapshot(port, 0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto previous = QueueCounters((*nic)->control_socket());
  ASSERT_TRUE(previous.ok()) << previous.status();
  for (int interval = 0; interval < kIntervalsCompared; ++interval) {
    snapshot = NextSnapshot(port, snapshot->value("end_unix_ns", int64_t{0}));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    auto now = QueueCounters((*nic)->control_socket());
    ASSERT_TRUE(now.ok()) << now.status();

    std::set<uint32_t> napi_threads;
    for (const nlohmann::json& napi : Entries(*snapshot, "napis", "device", device)) {
      napi_threads.insert(napi.value("thread_pid", 0u));
    }
    EXPECT_EQ(napi_threads, threads) << (*snapshot)["napis"].dump(1);
    const std::vector<nlohmann::json> rows = Entries(*snapshot, "queues", "device", device);
    ASSERT_EQ(rows.size(), kQueues) << (*snapshot)["queues"].dump(1);
    for (const nlohmann::json& row : rows) {
      const auto queue = row.value("queue", size_t{0});
      ASSERT_LT(queue, kQueues) << row.dump();
      const EmulatedNicCounters& a = (*previous)[queue];
      const EmulatedNicCounters& b = (*now)[queue];
      const double sampled = static_cast<double>(b.interrupts - a.interrupts) * 1e9 /
                             static_cast<double>(b.elapsed_ns - a.elapsed_ns);
      const double reported = row.value("interrupts_per_s", -1.0);
      std::cout << "interval " << interval + 1 << " queue " << queue << " at " << kRatesPps[queue]
                << " pps: nictune " << reported << " interrupts/s, sampled " << sampled << "/s, "
                << row.value("packets_per_poll", 0.0) << " packets/poll\n";
      EXPECT_EQ(row.value("map_source", ""), "nic-counters") << row.dump();
      EXPECT_EQ(row.value("napi_thread", 0u), static_cast<uint32_t>(b.napi_thread)) << row.dump();
      // The agent's reading and the test's lie a few ms apart.
      EXPECT_NEAR(reported, sampled, 0.05 * sampled) << row.dump();
      EXPECT_GT(row.value("polls_per_s", 0.0), 0.0) << row.dump();
    }
    previous = now;
  }
}

}  // namespace
}  // namespace nictune
