// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`'s report from the facts a start meets: what works, what works with less and
// what cannot, with the reason carried through, and the exit code that scripts rely on.
#include <string>
#include <utility>
#include <vector>

#include "agent/check/support_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::check {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SupportFacts EverythingWorks() {
  SupportFacts facts;
  facts.kernel = "Linux 6.18.44 x86_64";
  facts.capabilities = {{"CAP_BPF", absl::OkStatus()}, {"CAP_PERFMON", absl::OkStatus()}};
  facts.tracefs = std::string("/sys/kernel/tracing");
  facts.tracepoints = std::vector<TracepointPresence>{
      {.name = "napi:napi_poll", .concern = "napi", .present = true},
      {.name = "irq:irq_handler_entry", .concern = "irq", .present = true}};
  facts.probes = {{.name = "napi_poll", .attach_type = "tp_btf", .attached = true},
                  {.name = "irq", .attach_type = "raw_tp", .attached = true}};
  facts.sources = {{.name = "bpf", .source = model::Source::kBpf, .in_use = true},
                   {.name = "/proc/interrupts", .in_use = true, .detail = ""},
                   {.name = "/proc/net/snmp", .in_use = true, .detail = "12 namespaces"}};
  return facts;
}

const SupportItem* Find(const std::vector<SupportItem>& items, const std::string& what) {
  for (const SupportItem& item : items) {
    if (item.what == what) return &item;
  }
  return nullptr;
}

// The item, or a failed expectation and an empty item (a missing line fails, never crashes).
SupportItem Item(const std::vector<SupportItem>& items, const std::string& what) {
  const SupportItem* item = Find(items, what);
  EXPECT_NE(item, nullptr) << "no line for " << what;
  return item == nullptr ? SupportItem{.support = Support::kOk, .what = "", .detail = ""} : *item;
}

TEST(SupportReportTest, EverythingWorkingSaysSoAndExitsZero) {
  const std::vector<SupportItem> items = SupportReport(EverythingWorks());
  for (const SupportItem& item : items) EXPECT_EQ(item.support, Support::kOk) << item.what;
  EXPECT_EQ(Item(items, "BPF probes").detail, "2 of 2 programs attached");
  EXPECT_EQ(Find(items, "bpf"), nullptr) << "the probes' source is said by their own lines";
  EXPECT_EQ(Item(items, "/proc/net/snmp").detail, "12 namespaces");
  EXPECT_EQ(SupportExitCode(items), 0);
  const std::string text = FormatSupportReport(items, 80);
  EXPECT_THAT(text, HasSubstr("ok      kernel"));
  EXPECT_THAT(text, HasSubstr("runs here as asked, with everything it measures"));
  EXPECT_THAT(text, Not(HasSubstr("apply:"))) << "apply mode's self-tests only when asked";
}

TEST(SupportReportTest, PerPacketProgramsAreSaidToBeOnDemandAsStatusListsThem) {
  SupportFacts facts = EverythingWorks();
  facts.probes.push_back(
      {.name = "sockfill", .attach_type = "tp_btf", .attached = true, .per_packet = true});
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "BPF probes").detail, "3 of 3 programs attached (1 on demand)");
  EXPECT_THAT(Item(items, "BPF sockfill").detail,
              HasSubstr("on demand: runs while a socket is under"));
}

TEST(SupportReportTest, AMissingCapabilityOrTracefsLimitsWhatNeedsItAndSaysHowToFixIt) {
  SupportFacts facts = EverythingWorks();
  const std::vector<SupportItem> working = SupportReport(facts);
  EXPECT_EQ(Item(working, "CAP_BPF").detail, "held");
  EXPECT_EQ(Item(working, "tracefs").detail, "mounted at /sys/kernel/tracing");
  facts.capabilities[1].held =
      absl::PermissionDeniedError("CAP_PERFMON not held: the tracepoint programs cannot be attached");
  facts.tracefs = absl::NotFoundError("not mounted: mount -t tracefs nodev /sys/kernel/tracing");
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "CAP_PERFMON").support, Support::kLimited);
  EXPECT_THAT(Item(items, "CAP_PERFMON").detail, HasSubstr("tracepoint programs cannot"));
  EXPECT_EQ(Item(items, "tracefs").support, Support::kLimited);
  EXPECT_THAT(Item(items, "tracefs").detail, HasSubstr("mount -t tracefs"));
  // The agent still runs, with less.
  EXPECT_EQ(SupportExitCode(items), 0);
}

TEST(SupportReportTest, WithoutProbesOrAProgramItRunsWithLessAndSaysWhy) {
  SupportFacts facts = EverythingWorks();
  facts.probes[1] = {.name = "irq",
                     .attached = false,
                     .reason =
                         "tracepoint irq_handler_entry: "
                         "No such file or directory"};
  facts.btf = absl::NotFoundError("/sys/kernel/btf/vmlinux: No such file or directory (errno 2)");
  facts.sources[1] = {.name = "/proc/interrupts", .in_use = false, .detail = "EACCES"};
  facts.other_tuners = std::vector<observe::OtherTuner>{
      {.name = "irqbalance", .pid = 812, .overlap = "irq affinity"}};
  std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "BTF").support, Support::kLimited);
  EXPECT_EQ(Item(items, "BPF probes").detail, "1 of 2 programs attached");
  EXPECT_THAT(Item(items, "BPF irq").detail, HasSubstr("irq_handler_entry"));
  EXPECT_EQ(Item(items, "/proc/interrupts").support, Support::kLimited);
  EXPECT_THAT(Item(items, "other tuner irqbalance").detail, HasSubstr("pid 812"));
  EXPECT_EQ(SupportExitCode(items), 0);
  EXPECT_THAT(FormatSupportReport(items, 80), HasSubstr("with less: 5 item(s) limited"));

  facts.probes.clear();
  facts.probes_unavailable = "bpf: Operation not permitted (errno 1): needs CAP_BPF";
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "BPF probes").support, Support::kLimited);
  EXPECT_THAT(Item(items, "BPF probes").detail, HasSubstr("needs CAP_BPF"));
  EXPECT_THAT(Item(items, "BPF probes").detail, HasSubstr("procfs and sysfs only"));
  EXPECT_EQ(SupportExitCode(items), 0);
}

TEST(SupportReportTest, ApplyModeWithoutWritableSysctlsOrJournalCannotRunAndExitsOne) {
  SupportFacts facts = EverythingWorks();
  facts.apply = true;
  facts.device_knobs_writable = absl::PermissionDeniedError(
      "CAP_NET_ADMIN not held: coalescing, rings and channels cannot be set");
  std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "apply: sysctls").support, Support::kOk);
  // A start runs without it: the device settings' writes fail one by one, each said.
  EXPECT_EQ(Item(items, "apply: device settings").support, Support::kLimited);
  EXPECT_THAT(Item(items, "apply: device settings").detail, HasSubstr("CAP_NET_ADMIN"));
  EXPECT_EQ(SupportExitCode(items), 0);

  facts.sysctls_writable = absl::FailedPreconditionError("/proc/sys/net/core/netdev_budget: EROFS");
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "apply: sysctls").support, Support::kCannot);
  EXPECT_EQ(SupportExitCode(items), 1);
  EXPECT_THAT(FormatSupportReport(items, 80), HasSubstr("cannot run as asked here: 1 item(s)"));

  facts.sysctls_writable = absl::OkStatus();
  facts.state_dir = absl::PermissionDeniedError("/var/lib/nictune: not writable: EROFS");
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "state directory").support, Support::kCannot);
  EXPECT_THAT(Item(items, "state directory").detail, HasSubstr("refuses to start"));
  // Outside apply mode the same directory only costs the history.
  facts.apply = false;
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "state directory").support, Support::kLimited);
  EXPECT_EQ(Find(items, "apply: sysctls"), nullptr);
  EXPECT_EQ(SupportExitCode(items), 0);
}

TEST(SupportReportTest, NothingToMeasureFromCannotRun) {
  SupportFacts facts = EverythingWorks();
  facts.probes.clear();
  facts.probes_unavailable = "disabled by --bpf=false";
  for (model::SourceState& source : facts.sources) source.in_use = false;
  EXPECT_EQ(SupportExitCode(SupportReport(facts)), 1);

  facts = EverythingWorks();
  facts.window = absl::InvalidArgumentError("snapshots out of order");
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "sources").support, Support::kCannot);
  EXPECT_THAT(Item(items, "sources").detail, HasSubstr("out of order"));
}

TEST(SupportReportTest, EachProgramHasALineWithHowItIsAttached) {
  SupportFacts facts = EverythingWorks();
  facts.probes.push_back(
      {.name = "sockfill", .attach_type = "tp_btf", .attached = true, .per_packet = true});
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "BPF napi_poll").detail, "attached (tp_btf)");
  EXPECT_EQ(Item(items, "BPF irq").detail, "attached (raw_tp)");
  EXPECT_THAT(Item(items, "BPF sockfill").detail, HasSubstr("under pressure"));
  EXPECT_EQ(Item(items, "BPF sockfill").support, Support::kOk);
}

KnobReach Reach(std::string target, std::string driver,
                std::vector<std::pair<tuner::Knob, absl::Status>> reads,
                const absl::Status& write = absl::OkStatus()) {
  KnobReach reach{.target = std::move(target), .driver = std::move(driver), .knobs = {}};
  for (auto& [knob, read] : reads) {
    reach.knobs.push_back(
        {.knob = knob, .read = read, .write = read.ok() ? write : absl::OkStatus()});
  }
  return reach;
}

std::vector<KnobReach> HostAndDevices(const absl::Status& device_write) {
  const absl::Status ok = absl::OkStatus();
  const absl::Status none = absl::UnimplementedError("veth has no coalescing");
  std::vector<KnobReach> out = {
      Reach("host", "", {{tuner::Knob::kNetdevBudget, ok}, {tuner::Knob::kRmemMax, ok}}),
      Reach("eth0", "virtio_net",
            {{tuner::Knob::kRxUsecs, ok}, {tuner::Knob::kGroFlushTimeout, ok}}, device_write)};
  for (int i = 0; i < 5; ++i) {
    out.push_back(Reach("veth" + std::to_string(i), "veth",
                        {{tuner::Knob::kRxUsecs, none}, {tuner::Knob::kGroFlushTimeout, ok}},
                        device_write));
  }
  return out;
}

TEST(SupportReportTest, KnobsSayWhatIsReadAndWrittenPerTargetWithDevicesAlikeInOneLine) {
  SupportFacts facts = EverythingWorks();
  facts.knobs = HostAndDevices(absl::OkStatus());
  std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "knobs on host").detail, "read and write: netdev_budget, rmem_max");
  EXPECT_EQ(Item(items, "knobs on eth0 (virtio_net)").detail,
            "read and write: rx_usecs, gro_flush_timeout");
  const SupportItem veths = Item(items, "knobs on veth0, veth1, veth2 and 2 more");
  EXPECT_EQ(veths.detail, "read and write: gro_flush_timeout; not supported: rx_usecs");
  EXPECT_EQ(veths.support, Support::kOk) << "a driver without coalescing is no fault";

  // Without CAP_NET_ADMIN the devices' knobs are read only: a limit in apply mode alone.
  facts.knobs = HostAndDevices(absl::PermissionDeniedError("CAP_NET_ADMIN not held"));
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "knobs on eth0 (virtio_net)").detail,
            "read only: rx_usecs, gro_flush_timeout (CAP_NET_ADMIN not held)");
  EXPECT_EQ(Item(items, "knobs on eth0 (virtio_net)").support, Support::kOk);
  facts.apply = true;
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "knobs on eth0 (virtio_net)").support, Support::kLimited);
  EXPECT_EQ(Item(items, "knobs on host").support, Support::kOk);

  // A knob that is there and cannot be read limits what the tuner sees, in any mode.
  facts.apply = false;
  facts.knobs = {Reach("host", "",
                       {{tuner::Knob::kNetdevBudget, absl::DataLossError("netdev_budget: lots")},
                        {tuner::Knob::kRmemMax, absl::OkStatus()}})};
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "knobs on host").support, Support::kLimited);
  EXPECT_EQ(Item(items, "knobs on host").detail,
            "read and write: rmem_max; unreadable: netdev_budget (netdev_budget: lots)");
}

TEST(SupportReportTest, OtherTunersNotLookedForIsNotNone) {
  SupportFacts facts = EverythingWorks();
  facts.other_tuners = absl::FailedPreconditionError("/proc/1 is not visible");
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "other tuners").support, Support::kLimited);
  EXPECT_THAT(Item(items, "other tuners").detail, HasSubstr("not looked for"));
}

// What a start takes first, held by another: the state directory by a second agent, the port by
// another program, the socket by a live agent. Each stops a start (exit 1), so --check says
// cannot and exits 1; free, each says it is.
TEST(SupportReportTest, WhatAnotherAgentOrProgramHoldsStopsAStartAndSaysWhy) {
  SupportFacts facts = EverythingWorks();
  facts.listen = "127.0.0.1:9877";
  facts.socket = "/run/nictune/nictune.sock";
  std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "listen").detail, "127.0.0.1:9877 is free to serve");
  EXPECT_EQ(Item(items, "CLI socket").support, Support::kOk);
  EXPECT_EQ(Find(items, "state directory lock"), nullptr);
  EXPECT_EQ(SupportExitCode(items), 0);

  facts.state_lock = absl::FailedPreconditionError(
      "state directory /var/lib/nictune is in use: its lock /var/lib/nictune/nictuned.lock is "
      "held by PID 812 (another nictuned, or a tool it runs); two agents on one journal would "
      "undo each other's changes");
  facts.listen_free =
      absl::UnavailableError("listen on 127.0.0.1:9877: bind: Address already in use (errno 98)");
  facts.socket_free = absl::FailedPreconditionError(
      "unix socket /run/nictune/nictune.sock: another process (an agent already running?) "
      "listens on it");
  items = SupportReport(facts);
  EXPECT_EQ(Item(items, "state directory lock").support, Support::kCannot);
  EXPECT_THAT(Item(items, "state directory lock").detail, HasSubstr("held by PID 812"));
  EXPECT_EQ(Item(items, "listen").support, Support::kCannot);
  EXPECT_THAT(Item(items, "listen").detail, HasSubstr("Address already in use"));
  EXPECT_EQ(Item(items, "CLI socket").support, Support::kCannot);
  EXPECT_EQ(SupportExitCode(items), 1);
  EXPECT_THAT(FormatSupportReport(items, 80), HasSubstr("cannot run as asked here: 3 item(s)"));
}

// A tracepoint the kernel lacks is said before any probe loads, naming the probe it stops.
TEST(SupportReportTest, AMissingTracepointNamesTheProbeItStops) {
  SupportFacts facts = EverythingWorks();
  EXPECT_EQ(Item(SupportReport(facts), "tracepoints").detail,
            "the 2 the probes attach to are all there");
  (*facts.tracepoints)[0].present = false;
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "tracepoints").support, Support::kLimited);
  EXPECT_THAT(Item(items, "tracepoints").detail, HasSubstr("1 of 2; missing"));
  EXPECT_THAT(Item(items, "tracepoints").detail, HasSubstr("napi:napi_poll (napi)"));
  facts.tracepoints = absl::NotFoundError("neither tracefs nor BTF could be read");
  EXPECT_THAT(Item(SupportReport(facts), "tracepoints").detail, HasSubstr("not looked for"));
}

// One the probe can go without is said with what it goes without, not as a probe stopped.
TEST(SupportReportTest, AMissingTracepointAProbeCanGoWithoutSaysWhatItLoses) {
  SupportFacts facts = EverythingWorks();
  facts.tracepoints->push_back({.name = "sock:sock_recv_length",
                                .concern = "sockfill",
                                .without_it = "the drain gap (kernel 6.4 on)",
                                .present = false});
  const SupportItem& item = Item(SupportReport(facts), "tracepoints");
  EXPECT_EQ(item.support, Support::kLimited);
  EXPECT_EQ(item.detail,
            "2 of 3; missing: sock:sock_recv_length (sockfill runs without the drain gap "
            "(kernel 6.4 on))");
}

}  // namespace
}  // namespace nictune::check
