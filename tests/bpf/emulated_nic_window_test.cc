// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's interrupts in the agent's per-interval window (seed 003): with the real
// nictuned reading a real emulated NIC (recommend mode: it writes nothing), each interval's GET
// /api/v1/snapshot names the device's interrupts per second, from "emulated NIC counters", and that
// figure matches the NIC's own counter sampled by the test over the same interval; /metrics carries
// the counter itself. The TAP's NAPI poller threads' share of a CPU matches the kernel's ticks, and
// the drops on the NIC of an overflowing socket match the kernel's count in every interval.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// An emulated NIC of this test's own (device `prefix` and the PID) at `rate_pps` and `rx_usecs`.
absl::StatusOr<std::unique_ptr<EmulatedHost>> StartNic(const std::string& prefix, double rate_pps,
                                                       int64_t rx_usecs) {
  return EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary =
          absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = absl::StrCat(prefix, getpid() % 100000),
      .rate_pps = rate_pps,
      .rx_usecs = rx_usecs,
      .max_run = absl::Minutes(1)});
}

// nictuned in recommend mode (it writes nothing) watching `host`, sampling every kInterval.
absl::StatusOr<testing_support::LoopbackAgent> StartAgent(const std::string& name,
                                                          const EmulatedHost& host) {
  return testing_support::StartLoopbackAgent(
      name, {"--mode=recommend",
             absl::StrCat("--emulated_nic=", host.options().device, "=", host.control_socket()),
             absl::StrCat("--interval=", absl::FormatDuration(kInterval)), "--window=2s"});
}

TEST(EmulatedNicWindowTest, EachIntervalHasTheNicsInterruptsPerSecondFromItsOwnCounters) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  // 10000 pps at rx-usecs 1000: an interrupt every ~1.1 ms, 11 datagrams each, far below the
  // default socket buffer: no drops, nothing for the tuner to press.
  auto host = StartNic("emw", 10000, 1000);
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string device = (*host)->options().device;
  auto agent = StartAgent("nictune_emulated_window_", **host);
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

// The inode of the network namespace `ip netns` named `name`: the key of its counters in a
// snapshot's protocol_per_s.by_netns.
absl::StatusOr<uint64_t> NetnsInode(const std::string& name) {
  struct stat st {};
  const std::string path = absl::StrCat("/run/netns/", name);
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("stat ", path, ": errno ", errno));
  }
  return static_cast<uint64_t>(st.st_ino);
}

// A socket that overflows at every interrupt: each interval's drops on the NIC (the snapshot's
// device_drops, `nictune top`'s DROPS/S) are the kernel's count for its namespace over the same
// interval (Udp.RcvbufErrors, which the agent read from /proc/net/snmp inside it), also in the
// intervals the drop probe's slots saw none of, where the probe's records name no device and the
// socket census's count of the socket's drops, on the device the socket was placed on, stands in.
TEST(EmulatedNicWindowTest, EachIntervalsDropsOnTheNicAreTheKernelsCountWhateverTheProbeSaw) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  // 10000 pps of 128-byte frames at rx-usecs 8000: 80 a burst into a socket that holds about 31.
  EmulatedHostOptions options = testing_support::SmallSocketNicOptions(
      absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"));
  options.device = absl::StrCat("emd", getpid() % 100000);
  options.rx_usecs = 8000;
  options.max_run = absl::Minutes(1);
  auto host = EmulatedHost::Start(options);
  ASSERT_TRUE(host.ok()) << host.status();
  const absl::StatusOr<uint64_t> netns = NetnsInode((*host)->netns());
  ASSERT_TRUE(netns.ok()) << netns.status();
  auto agent = StartAgent("nictune_emulated_drops_", **host);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const uint16_t port = agent->port;

  auto snapshot = NextSnapshot(port, 0);
  int probe_missed = 0;
  for (int i = 0; i < 2 * kIntervalsCompared; ++i) {
    snapshot = NextSnapshot(port, snapshot->value("end_unix_ns", int64_t{0}));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    const double kernel = (*snapshot)["protocol_per_s"]["by_netns"]
                              .value(std::to_string(*netns), nlohmann::json::object())
                              .value("Udp.RcvbufErrors", 0.0);
    double on_device = -1;
    for (const nlohmann::json& d : (*snapshot)["device_drops"]) {
      if (d.value("device", "") == options.device) on_device = d.value("per_s", 0.0);
    }
    double drops_hook = -1;
    for (const nlohmann::json& p : (*snapshot)["probes"]) {
      if (p.value("hook", "") == "drops") drops_hook = p.value("coverage", -1.0);
    }
    if (drops_hook < 1) ++probe_missed;
    std::cout << "interval " << i + 1 << ": " << options.device << " " << on_device
              << " drops/s, Udp.RcvbufErrors " << kernel << "/s, drops hook saw " << drops_hook
              << " of it\n";
    // The first intervals: the receiver's socket is not yet in the census at both ends.
    if (i < 2) continue;
    ASSERT_GT(kernel, 1000) << "80 frames a burst into a socket of about 31";
    // The census and /proc/net/snmp are read a few ms apart in each snapshot.
    EXPECT_NEAR(on_device, kernel, 0.1 * kernel)
        << "device_drops: " << (*snapshot)["device_drops"].dump()
        << "\ndrops: " << (*snapshot)["drops"].dump()
        << "\nsockets: " << (*snapshot)["sockets"].dump();
  }
  std::cout << "the drops hook saw part or none of " << probe_missed << " intervals\n";
}

// utime + stime of a task in USER_HZ ticks (/proc/PID/stat fields 14 and 15, after the comm in
// parentheses, which may hold spaces), and its comm.
struct TaskTicks {
  std::string comm;
  uint64_t ticks = 0;
};

absl::StatusOr<TaskTicks> ReadTaskTicks(uint32_t pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/stat");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (!in.good() && text.empty()) return absl::NotFoundError(absl::StrCat(path, ": unreadable"));
  if (open == std::string::npos || close == std::string::npos || close < open) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no comm in \"", text, "\""));
  }
  // After ") ": state is field 3, utime field 14, stime field 15.
  const std::vector<std::string> fields = absl::StrSplit(text.substr(close + 2), ' ');
  uint64_t utime = 0;
  uint64_t stime = 0;
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &utime) ||
      !absl::SimpleAtoi(fields[12], &stime)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no utime and stime in \"", text, "\""));
  }
  return TaskTicks{.comm = text.substr(open + 1, close - open - 1), .ticks = utime + stime};
}

// The emulated NIC's TAP polls in NAPI threads, which /proc/stat counts as system time, not
// softirq: the agent reads each poller's /proc/PID/schedstat (nanoseconds on a CPU), and over a
// dozen intervals the mean of its per-interval shares matches the kernel's other account of the
// same thread, utime + stime in ticks (USER_HZ 100: 10 ms each; a 6 s span at 40000 pps holds
// about 13 of them).
TEST(EmulatedNicWindowTest, ItsNapiPollersShareOfACpuMatchesTheKernelsTicks) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  auto host = StartNic("emp", 40000, 200);
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string device = (*host)->options().device;
  auto agent = StartAgent("nictune_emulated_pollers_", **host);
  ASSERT_TRUE(agent.ok()) << agent.status();
  const uint16_t port = agent->port;

  // The agent watches the pollers its first interval's counters name, from the next one on.
  std::optional<uint32_t> pid;
  auto snapshot = NextSnapshot(port, 0);
  for (int i = 0; i < 4 && !pid; ++i) {
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    for (const nlohmann::json& p : snapshot->value("napi_pollers", nlohmann::json::array())) {
      if (p.value("device", "") == device) pid = p.value("pid", uint32_t{0});
    }
    if (!pid) snapshot = NextSnapshot(port, snapshot->value("end_unix_ns", int64_t{0}));
  }
  ASSERT_TRUE(pid.has_value()) << "no napi_pollers entry for " << device << ": "
                               << snapshot->dump(1);
  auto start = ReadTaskTicks(*pid);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_TRUE(absl::StartsWith(start->comm, "napi/")) << "pid " << *pid << " is " << start->comm;
  const absl::Time started = absl::Now();
  double shares = 0;
  int intervals = 0;
  for (; intervals < 12; ++intervals) {
    snapshot = NextSnapshot(port, snapshot->value("end_unix_ns", int64_t{0}));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    bool found = false;
    for (const nlohmann::json& p : snapshot->value("napi_pollers", nlohmann::json::array())) {
      if (p.value("pid", uint32_t{0}) != *pid) continue;
      EXPECT_EQ(p["source"], "procfs");
      EXPECT_EQ(p["queue"], 0);
      shares += p.value("cpu_share", -1.0);
      found = true;
    }
    ASSERT_TRUE(found) << "poller " << *pid << " missing: " << snapshot->dump(1);
  }
  auto end = ReadTaskTicks(*pid);
  ASSERT_TRUE(end.ok()) << end.status();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - started);
  const double ticked = static_cast<double>(end->ticks - start->ticks) /
                        static_cast<double>(sysconf(_SC_CLK_TCK)) / seconds;
  const double reported = shares / intervals;
  std::cout << "poller " << *pid << " (" << start->comm << "): nictune " << reported
            << " of a CPU, /proc/PID/stat " << ticked << " over " << seconds << " s\n";
  EXPECT_GT(ticked, 0.005) << "40000 pps keeps the poller busy";
  // Ticks come whole: two of them over the span, and 10% for the readings' few ms apart at each
  // end (6 runs here differed by at most 0.9 of a tick, 0.0015 of a CPU at ~0.022).
  const double tick_share = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK)) / seconds;
  EXPECT_NEAR(reported, ticked, 2 * tick_share + 0.1 * ticked);
}

}  // namespace
}  // namespace nictune
