// SPDX-License-Identifier: Apache-2.0
// dashboards/metrics.txt, the list of metric families the dashboards and rules may use, is the
// list a live exporter (with the service's health families) publishes: a family added, renamed or
// dropped in the agent fails here until the list (and whatever queries it) follows. The exposition
// comes from a real collection with the probes attached and a UDP flow between two namespaces that
// overflows its socket, so the per-socket and drop families carry series.
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/metrics/exporter.h"
#include "agent/procfs/read_file.h"
#include "agent/service/health_metrics.h"
#include "agent/service/service_status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/live_exposition.h"
#include "tests/support/metric_families.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::MetricFamilies;

std::string AsList(const MetricFamilies& families) {
  std::string out;
  for (const auto& [name, type] : families) absl::StrAppend(&out, name, " ", type, "\n");
  return out;
}

TEST(DashboardsExposition, MetricsListMatchesTheLiveExporter) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::string> list_text =
      procfs::ReadFile(absl::StrCat(testing_support::SourceDir(), "/dashboards/metrics.txt"));
  ASSERT_TRUE(list_text.ok()) << list_text.status();
  absl::StatusOr<MetricFamilies> listed =
      testing_support::ParseFamilyList(*list_text, "dashboards/metrics.txt");
  ASSERT_TRUE(listed.ok()) << listed.status();

  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<testing_support::UdpFlow> flow = testing_support::UdpFlow::Open(
      **hosts,
      {.rcvbuf_bytes = 16384,
       .batch = 8,
       .drain_gap = absl::Milliseconds(3),
       .run_time = absl::Seconds(3)},
      {.packets = 10000, .payload_bytes = 128, .max_duration = absl::Seconds(2)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  metrics::MetricsExporter exporter({.max_sockets = 3});
  // The daemon adds its own health families to the exporter's registry.
  service::HealthMetrics health(exporter.registry());
  health.Update(service::ServiceStatus{}, 0);
  const absl::Status exported = testing_support::ExportWindowOfFlow(*flow, exporter);
  ASSERT_TRUE(exported.ok()) << exported;

  const MetricFamilies live = testing_support::ExposedFamilies(exporter.Text());
  // The flow reached the socket families, so their absence below would be a real rename.
  ASSERT_TRUE(live.contains("nictune_socket_receive_buffer_peak_fill_ratio")) << AsList(live);
  // prometheus-cpp leaves out a family with no series. These have none in this scenario, each for
  // a stated reason; every other listed family must be live, and every live one listed.
  const std::map<std::string, std::string> quiet_here = {
      {"nictune_irq_handler_calls_total", "a hardware interrupt inside the window (veth has none)"},
      {"nictune_irq_handler_seconds_total", "a hardware interrupt inside the window"},
      {"nictune_hardirq_seconds_total", "a hardware interrupt inside the window"},
      {"nictune_softirq_raised_total", "softirq_raise, opt-in (ProbeOptions::softirq_raise)"},
      {"nictune_knob_recommended_seconds", "a tuner window (the daemon's Tuning publishes it)"},
      {"nictune_knob_recommended_bytes", "a tuner window"},
      {"nictune_knob_recommended_packets", "a tuner window"},
      {"nictune_knob_recommended_polls", "a tuner window"},
      {"nictune_knob_recommended_ratio", "a tuner window"},
      {"nictune_knob_recommended_enabled", "a tuner window"},
      {"nictune_knob_current_seconds", "a tuner window"},
      {"nictune_knob_current_bytes", "a tuner window"},
      {"nictune_knob_current_packets", "a tuner window"},
      {"nictune_knob_current_polls", "a tuner window"},
      {"nictune_knob_current_ratio", "a tuner window"},
      {"nictune_knob_current_enabled", "a tuner window"},
      {"nictune_knob_mode", "a tuner window"},
      {"nictune_changes_total", "a change in apply mode"},
      {"nictune_emulated_nic_interrupts_total", "an emulated NIC (--emulated_nic)"},
      {"nictune_emulated_nic_delivered_packets_total", "an emulated NIC"},
      {"nictune_emulated_nic_missed_packets_total", "an emulated NIC"},
      {"nictune_napi_poller_cpu_seconds_total", "a threaded NAPI poller (sysfs threaded on)"},
  };
  MetricFamilies expected;
  for (const auto& [name, type] : *listed) {
    if (!quiet_here.contains(name) || live.contains(name)) expected[name] = type;
  }
  for (const auto& [name, why] : quiet_here) {
    EXPECT_TRUE(listed->contains(name)) << name << " is excused here but not in metrics.txt";
  }
  EXPECT_EQ(AsList(expected), AsList(live))
      << "dashboards/metrics.txt differs from the live exposition; the live list is:\n"
      << AsList(live);
}

}  // namespace
}  // namespace nictune
