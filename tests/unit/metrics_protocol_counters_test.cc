// SPDX-License-Identifier: Apache-2.0
// The netstat metric names nictune exports are node_exporter's counter names in snake_case, so a
// join can follow one rule; a name attached to the wrong counter, or misspelt, breaks it.
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "agent/metrics/protocol_counters.h"
#include "gtest/gtest.h"

namespace nictune::metrics {
namespace {

TEST(ProtocolCounters, EachMetricIsItsSectionAndNameInSnakeCase) {
  std::set<std::string> metrics;
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    absl::string_view name = counter.name;
    // TcpExt's TCP-prefixed counters drop the repeated "tcp": tcpext_backlog_drop.
    if (counter.section == "TcpExt") absl::ConsumePrefix(&name, "TCP");
    const std::string expected = absl::AsciiStrToLower(absl::StrCat(counter.section, name));
    EXPECT_EQ(absl::StrReplaceAll(counter.metric, {{"_", ""}}), expected)
        << counter.section << " " << counter.name << " is exported as " << counter.metric;
    EXPECT_TRUE(metrics.insert(std::string(counter.metric)).second) << counter.metric;
  }
  EXPECT_EQ(ProtocolCounterMetric(kProtocolCounters[7]), "nictune_netstat_udp_rcvbuf_errors_total");
  EXPECT_EQ(NodeExporterProtocolCounterMetric(kProtocolCounters[7]),
            "node_netstat_Udp_RcvbufErrors");
  EXPECT_EQ(ProtocolCounterFile(kProtocolCounters[7]), "/proc/net/snmp");
}

}  // namespace
}  // namespace nictune::metrics
