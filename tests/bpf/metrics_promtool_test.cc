// SPDX-License-Identifier: Apache-2.0
// The exporter's real output from a live collection (real /proc, real probes, a UDP flow between
// two namespaces that overflows its socket) passes `promtool check metrics` without a remark.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/metrics/exporter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/live_exposition.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;

constexpr const char* kPromtool = "/usr/bin/promtool";

TEST(MetricsPromtool, LiveExpositionPassesPromtoolCheckMetrics) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(access(kPromtool, X_OK), 0) << kPromtool << " missing: apt-get install prometheus";

  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<testing_support::UdpFlow> flow = testing_support::UdpFlow::Open(
      **hosts,
      {.rcvbuf_bytes = 32768,
       .batch = 16,
       .drain_gap = absl::Milliseconds(2),
       .run_time = absl::Seconds(3)},
      {.packets = 20000, .payload_bytes = 64, .max_duration = absl::Seconds(2)});
  ASSERT_TRUE(flow.ok()) << flow.status();

  metrics::MetricsExporter exporter({.max_sockets = 5});
  const absl::Status exported = testing_support::ExportWindowOfFlow(*flow, exporter);
  ASSERT_TRUE(exported.ok()) << exported;
  const std::string text = exporter.Text();

  // The live output carries what the flow did, so promtool checks real series of every kind.
  EXPECT_THAT(text, HasSubstr("nictune_source_up{kind=\"bpf\",source=\"bpf\"} 1"));
  EXPECT_THAT(text, HasSubstr("nictune_softirqs_total{cpu=\"0\",vector=\"NET_RX\"}"));
  EXPECT_THAT(text, HasSubstr("nictune_softirq_seconds_total{cpu="));
  EXPECT_THAT(text, HasSubstr("nictune_napi_poll_work_packets_bucket{"));
  // The flow's namespace is not the agent's: its drops are counted under other_namespaces.
  EXPECT_THAT(text, HasSubstr("nictune_skb_drops_total{device=\"other_namespaces\",proto=\"udp\","
                              "reason=\"SOCKET_RCVBUFF\"}"));
  EXPECT_THAT(text, HasSubstr("nictune_bpf_map_capacity_entries{map=\"drop_counts\"} 8192"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("socket=\"", flow->receiver().socket_cookie(), "\"")));

  char path[] = "/tmp/nictune_metrics_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  absl::StatusOr<testing_support::ProgramOutput> check =
      testing_support::RunProgram({"sh", "-c", absl::StrCat(kPromtool, " check metrics < ", path)});
  std::remove(path);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->exit_code, 0) << check->out << check->err;
  EXPECT_EQ(check->out + check->err, "");
}

}  // namespace
}  // namespace nictune
