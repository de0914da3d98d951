// SPDX-License-Identifier: Apache-2.0
// The rx ring advice end to end: a real nictuned (recommend mode: it writes nothing) reads an
// emulated NIC whose 32-descriptor ring overruns at rx-usecs 8000 (10000 pps bring 80 frames an
// interval), recommends a larger ring, and `nictune recommend --as=ethtool` prints it, with the
// interval, as the NIC's control-socket lines. Carried out by hand as printed, the NIC misses no
// frame over the seconds after, by its own counter.
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <regex>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/loopback_http.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"

namespace nictune {
namespace {

using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;

constexpr int64_t kSmallRing = 32;
constexpr double kRatePps = 10000;

// The latest window's rx_ring recommendation for `device`, once it grows the ring.
absl::StatusOr<nlohmann::json> GrownRing(uint16_t port, const std::string& device,
                                         absl::Duration within) {
  const absl::Time until = absl::Now() + within;
  std::string last = "no answer yet";
  while (absl::Now() < until) {
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(port, "/api/v1/recommendations", absl::Seconds(5));
    if (reply.ok() && reply->status == 200) {
      last = reply->body;
      const nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
      for (const nlohmann::json& r : body.value("recommendations", nlohmann::json::array())) {
        if (r.value("knob", "") == "rx_ring" && r.value("target", "") == device &&
            r.value("recommended", int64_t{0}) > r.value("current", int64_t{0})) {
          return r;
        }
      }
    }
    absl::SleepFor(absl::Milliseconds(250));
  }
  return absl::DeadlineExceededError(absl::StrCat("no grown rx_ring for ", device, " within ",
                                                  absl::FormatDuration(within),
                                                  "; last answer: ", last));
}

// What the NIC counted over a span: the frames it missed (its ring full), and how late its
// stalled interrupts fired (the host held its thread off the CPU).
struct MissedSpan {
  uint64_t missed = 0;
  uint64_t stalls = 0;
  double stall_late_s = 0;
};

absl::StatusOr<MissedSpan> MissedOver(const EmulatedHost& host, absl::Duration span) {
  auto before = host.Counters();
  if (!before.ok()) return before.status();
  absl::SleepFor(span);
  auto after = host.Counters();
  if (!after.ok()) return after.status();
  return MissedSpan{
      .missed = after->missed - before->missed,
      .stalls = after->stalls - before->stalls,
      .stall_late_s =
          static_cast<double>(after->stall_late_ns_total - before->stall_late_ns_total) * 1e-9};
}

TEST(RingAdviceTest, AnOverrunRingIsRecommendedLargerAndHoldsOnceCarriedOutByHand) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  auto host = EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary =
          absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = absl::StrCat("emr", getpid() % 100000),
      .rate_pps = kRatePps,
      .rx_usecs = 8000,
      .ring_size = kSmallRing,
      .max_run = absl::Minutes(2)});
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string device = (*host)->options().device;
  absl::StatusOr<MissedSpan> missed = MissedOver(**host, absl::Seconds(1));
  ASSERT_TRUE(missed.ok()) << missed.status();
  ASSERT_GT(missed->missed, 0u) << "80 frames an interval into 32 descriptors must overrun";

  auto agent = testing_support::StartLoopbackAgent(
      "nictune_ring_advice_",
      {"--mode=recommend", absl::StrCat("--emulated_nic=", device, "=", (*host)->control_socket()),
       "--interval=500ms", "--window=2s"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  const uint16_t port = agent->port;

  absl::StatusOr<nlohmann::json> ring = GrownRing(port, device, absl::Seconds(20));
  ASSERT_TRUE(ring.ok()) << ring.status();
  std::cout << "rx_ring: " << ring->dump(1) << "\n";
  EXPECT_EQ((*ring)["current"], kSmallRing);
  EXPECT_EQ((*ring)["expected_gain"], 1.0) << "an overrun ring: its drops are the gain";
  EXPECT_EQ((*ring)["unresolved"], nullptr);

  // The by-hand commands, as printed; each SET line of the NIC's carried out over its socket.
  absl::StatusOr<testing_support::ProgramOutput> shell = testing_support::RunProgram(
      {testing_support::BinaryDir() + "/agent/nictune",
       absl::StrCat("--url=http://127.0.0.1:", port), "recommend", "--as=ethtool"});
  ASSERT_TRUE(shell.ok()) << shell.status();
  ASSERT_EQ(shell->exit_code, 0) << shell->err;
  std::cout << shell->out;
  const std::regex set_line("printf 'SET ([a-z_]+) ([0-9]+)\\\\n' \\| socat - UNIX-CONNECT:" +
                            (*host)->control_socket());
  int64_t ring_set = 0;
  int64_t rx_usecs_set = 0;
  int sets = 0;
  for (std::sregex_iterator it(shell->out.begin(), shell->out.end(), set_line), end; it != end;
       ++it) {
    int64_t value = 0;
    ASSERT_TRUE(absl::SimpleAtoi((*it)[2].str(), &value)) << (*it)[0];
    if ((*it)[1] == "ring_size") ring_set = value;
    if ((*it)[1] == "rx_usecs") rx_usecs_set = value;
    ASSERT_TRUE((*host)->SetKnob((*it)[1], value).ok()) << (*it)[0];
    ++sets;
  }
  EXPECT_EQ(ring_set, (*ring)["recommended"].get<int64_t>()) << shell->out;
  EXPECT_GE(sets, 2) << "the ring and the interval it holds: " << shell->out;
  // At the 10000 pps that come, not the 4000 the full ring let through: the ring holds the
  // interval recommended with it.
  EXPECT_GE(static_cast<double>(ring_set), kRatePps * static_cast<double>(rx_usecs_set) * 1e-6)
      << "ring " << ring_set << " at rx-usecs " << rx_usecs_set;

  absl::SleepFor(absl::Milliseconds(500));  // the NIC's current interval ends at the old setting
  missed = MissedOver(**host, absl::Seconds(3));
  ASSERT_TRUE(missed.ok()) << missed.status();
  // Frames that came while a stall held the NIC off its CPU overflow any ring: at most the rate
  // times the stalls' lateness. Without a stall, none.
  EXPECT_LE(static_cast<double>(missed->missed), kRatePps * missed->stall_late_s)
      << "the ring as recommended holds the interval as recommended; the NIC stalled "
      << missed->stalls << " times, " << missed->stall_late_s * 1e3 << " ms late in all";
  std::cout << "over 3 s as recommended: " << missed->missed << " frames missed, " << missed->stalls
            << " stalls\n";
}

}  // namespace
}  // namespace nictune
