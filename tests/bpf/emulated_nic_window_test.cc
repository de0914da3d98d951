// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's interrupts in the agent's per-interval window (seed 003): with the real
// nictuned reading a real emulated NIC (recommend mode: it writes nothing), each interval's GET
// /api/v1/snapshot names the device's interrupts per second, from "emulated NIC counters", and that
// figure matches the NIC's own counter sampled by the test over the same interval; /metrics carries
// the counter itself.
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
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/loopback_http.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"

namespace nictune {
namespace {

using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;

constexpr absl::Duration kInterval = absl::Milliseconds(500);
constexpr int kIntervalsCompared = 6;

// The device's entry in a snapshot's emulated_nics, if any.
std::optional<nlohmann::json> EmulatedNic(const nlohmann::json& snapshot,
                                          const std::string& device) {
  for (const nlohmann::json& nic : snapshot.value("emulated_nics", nlohmann::json::array())) {
    if (nic.value("device", "") == device) return nic;
  }
  return std::nullopt;
}

// The snapshot of the interval after the one ending at `after_end_ns`.
absl::StatusOr<nlohmann::json> NextSnapshot(uint16_t port, int64_t after_end_ns) {
  return testing_support::NextSnapshot(port, after_end_ns, 4 * kInterval);
}

// The value of `series` (name and labels as exposed) in a /metrics text.
std::optional<double> MetricValue(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
  }
  return std::nullopt;
}

TEST(EmulatedNicWindowTest, EachIntervalHasTheNicsInterruptsPerSecondFromItsOwnCounters) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  // 10000 pps at rx-usecs 1000: an interrupt every ~1.1 ms, 11 datagrams each, far below the
  // default socket buffer: no drops, nothing for the tuner to press.
  auto host = EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary = absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = absl::StrCat("emw", getpid() % 100000),
      .rate_pps = 10000,
      .rx_usecs = 1000,
      .max_run = absl::Minutes(1)});
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string device = (*host)->options().device;
  auto agent = testing_support::StartLoopbackAgent(
      "nictune_emulated_window_",
      {"--mode=recommend", absl::StrCat("--emulated_nic=", device, "=", (*host)->control_socket()),
       absl::StrCat("--interval=", absl::FormatDuration(kInterval)), "--window=2s"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  const uint16_t port = agent->port;

  // As the seeds' sampler does: the NIC's counter read as each of the agent's intervals closes,
  // so both figures cover the same interval (the agent's reading came a few ms earlier).
  auto snapshot = NextSnapshot(port, 0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto previous = (*host)->Counters();
  ASSERT_TRUE(previous.ok()) << previous.status();
  for (int i = 0; i < kIntervalsCompared; ++i) {
    snapshot = NextSnapshot(port, snapshot->value("end_unix_ns", int64_t{0}));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    auto now = (*host)->Counters();
    ASSERT_TRUE(now.ok()) << now.status();
    const double sampled = static_cast<double>(now->interrupts - previous->interrupts) * 1e9 /
                           static_cast<double>(now->elapsed_ns - previous->elapsed_ns);
    previous = now;
    std::optional<nlohmann::json> nic = EmulatedNic(*snapshot, device);
    ASSERT_TRUE(nic.has_value()) << "no emulated_nics entry for " << device << ": "
                                 << snapshot->dump(1);
    EXPECT_EQ((*nic)["source"], "emulated NIC counters");
    const double reported = nic->value("interrupts_per_s", -1.0);
    std::cout << "interval " << i + 1 << ": nictune " << reported << "/s, sampled " << sampled
              << "/s over " << nic->value("seconds", 0.0) << " s of the NIC's clock\n";
    // The two readings of each interval lie a few ms apart: within 5% of ~900/s.
    EXPECT_NEAR(reported, sampled, 0.05 * sampled) << nic->dump();
    EXPECT_GT(reported, 500) << "rx-usecs 1000 at 10000 pps interrupts about 900 times a second";
  }
  bool listed = false;
  for (const nlohmann::json& source : (*snapshot)["sources"]) {
    if (source.value("name", "") != "emulated NIC " + device) continue;
    listed = true;
    EXPECT_EQ(source["in_use"], true) << source.dump();
    EXPECT_EQ(source["kind"], "emulated NIC counters") << source.dump();
  }
  EXPECT_TRUE(listed) << (*snapshot)["sources"].dump(1);

  // /metrics: the counter of the latest interval's reading, between two readings of the test's.
  auto before = (*host)->Counters();
  ASSERT_TRUE(before.ok()) << before.status();
  // The interval after the current one: its reading comes after `before`.
  auto current = testing_support::GetJsonLoopback(port, "/api/v1/snapshot");
  ASSERT_TRUE(current.ok()) << current.status();
  snapshot = NextSnapshot(port, current->value("end_unix_ns", int64_t{0}));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto metrics = testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(5));
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto after = (*host)->Counters();
  ASSERT_TRUE(after.ok()) << after.status();
  const std::optional<double> exported =
      MetricValue(metrics->body,
                  absl::StrCat("nictune_emulated_nic_interrupts_total{device=\"", device, "\"}"));
  ASSERT_TRUE(exported.has_value()) << metrics->body;
  EXPECT_GE(*exported, static_cast<double>(before->interrupts));
  EXPECT_LE(*exported, static_cast<double>(after->interrupts));
}

}  // namespace
}  // namespace nictune
