// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`'s report from the facts a start meets: what works, what works with less and
// what cannot, with the reason carried through, and the exit code that scripts rely on.
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
  const std::string text = FormatSupportReport(items);
  EXPECT_THAT(text, HasSubstr("ok      kernel"));
  EXPECT_THAT(text, HasSubstr("runs here as asked, with everything it measures"));
  EXPECT_THAT(text, Not(HasSubstr("apply:"))) << "apply mode's self-tests only when asked";
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
  EXPECT_THAT(FormatSupportReport(items), HasSubstr("with less: 5 item(s) limited"));

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
  EXPECT_THAT(FormatSupportReport(items), HasSubstr("cannot run as asked here: 1 item(s)"));

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

TEST(SupportReportTest, OtherTunersNotLookedForIsNotNone) {
  SupportFacts facts = EverythingWorks();
  facts.other_tuners = absl::FailedPreconditionError("/proc/1 is not visible");
  const std::vector<SupportItem> items = SupportReport(facts);
  EXPECT_EQ(Item(items, "other tuners").support, Support::kLimited);
  EXPECT_THAT(Item(items, "other tuners").detail, HasSubstr("not looked for"));
}

}  // namespace
}  // namespace nictune::check
