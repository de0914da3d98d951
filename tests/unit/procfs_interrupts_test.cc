// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(testing_support::FixturesDir(), "/interrupts/", name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

const InterruptLine* Find(const InterruptTable& table, const std::string& id) {
  for (const InterruptLine& line : table.lines) {
    if (line.id == id) return &line;
  }
  return nullptr;
}

TEST(ParseInterrupts, RecordedX86_6_18TwoCpuVirtio) {
  absl::StatusOr<InterruptTable> table = ParseInterrupts(Fixture("x86_64_6.18_2cpu.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->cpu_count, 2);
  EXPECT_THAT(table->cpu_ids, ElementsAre(0, 1));
  ASSERT_EQ(table->lines.size(), 34u);

  const InterruptLine* rx = Find(*table, "41");
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->irq, 41u);
  EXPECT_THAT(rx->per_cpu, ElementsAre(1710, 0));
  EXPECT_EQ(rx->total, 1710u);
  EXPECT_EQ(rx->chip, "PCI-MSIX-0000:00:04.0");
  EXPECT_EQ(rx->hwirq, "1-edge");
  EXPECT_EQ(rx->trigger, "");
  EXPECT_EQ(rx->actions, "virtio3-rx");

  const InterruptLine* tx = Find(*table, "42");
  ASSERT_NE(tx, nullptr);
  EXPECT_THAT(tx->per_cpu, ElementsAre(0, 3450));
  EXPECT_EQ(tx->actions, "virtio3-tx");

  const InterruptLine* acpi = Find(*table, "24");
  ASSERT_NE(acpi, nullptr);
  EXPECT_EQ(acpi->chip, "IO-APIC");
  EXPECT_EQ(acpi->hwirq, "5-edge");
  EXPECT_EQ(acpi->actions, "ACPI:Ged");

  const InterruptLine* loc = Find(*table, "LOC");
  ASSERT_NE(loc, nullptr);
  EXPECT_FALSE(loc->irq.has_value());
  EXPECT_THAT(loc->per_cpu, ElementsAre(34804, 35191));
  EXPECT_EQ(loc->total, 34804u + 35191u);
  EXPECT_EQ(loc->actions, "Local timer interrupts");
  EXPECT_EQ(loc->chip, "");

  const InterruptLine* err = Find(*table, "ERR");
  ASSERT_NE(err, nullptr);
  EXPECT_TRUE(err->per_cpu.empty());
  EXPECT_EQ(err->total, 0u);
  EXPECT_EQ(err->actions, "");
}

TEST(ParseInterrupts, Arm64Gicv3WithTriggerColumnAndIpis) {
  absl::StatusOr<InterruptTable> table = ParseInterrupts(Fixture("arm64_5.15_8cpu.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->cpu_count, 8);

  const InterruptLine* timer = Find(*table, "10");
  ASSERT_NE(timer, nullptr);
  EXPECT_THAT(timer->per_cpu, ElementsAre(47339, 37590, 38361, 39436, 36883, 38075, 38373, 37740));
  EXPECT_EQ(timer->chip, "GICv3");
  EXPECT_EQ(timer->hwirq, "27");
  EXPECT_EQ(timer->trigger, "Level");
  EXPECT_EQ(timer->actions, "arch_timer");

  const InterruptLine* queue3 = Find(*table, "20");
  ASSERT_NE(queue3, nullptr);
  EXPECT_EQ(queue3->chip, "ITS-MSI");
  EXPECT_EQ(queue3->hwirq, "81924");
  EXPECT_EQ(queue3->trigger, "Edge");
  EXPECT_EQ(queue3->actions, "ens5-Tx-Rx-3");
  EXPECT_EQ(queue3->per_cpu[3], 215338u + 3 * 1111u);
  EXPECT_EQ(queue3->total, 215338u + 3 * 1111u);

  const InterruptLine* mgmt = Find(*table, "16");
  ASSERT_NE(mgmt, nullptr);
  EXPECT_EQ(mgmt->actions, "ens5-mgmnt@pci:0000:00:05.0");

  const InterruptLine* crash_stop = Find(*table, "IPI3");
  ASSERT_NE(crash_stop, nullptr);
  EXPECT_EQ(crash_stop->per_cpu.size(), 8u);
  EXPECT_EQ(crash_stop->actions, "CPU stop (for crash dump) interrupts");

  const InterruptLine* resched = Find(*table, "IPI0");
  ASSERT_NE(resched, nullptr);
  EXPECT_EQ(resched->per_cpu[7], 1524u + 7 * 37u);

  const InterruptLine* err = Find(*table, "Err");
  ASSERT_NE(err, nullptr);
  EXPECT_TRUE(err->per_cpu.empty());
}

TEST(ParseInterrupts, ManyCpusWithOfflineOnesKeepHeaderIds) {
  absl::StatusOr<InterruptTable> table = ParseInterrupts(Fixture("x86_64_5.4_16cpu_2offline.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->cpu_count, 14);
  EXPECT_THAT(table->cpu_ids, ElementsAre(0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15));

  // eth0-TxRx-11 fires on the 12th column, which is CPU 13 because 3 and 9 are offline.
  const InterruptLine* queue11 = Find(*table, "40");
  ASSERT_NE(queue11, nullptr);
  EXPECT_EQ(queue11->chip, "IR-PCI-MSI");
  EXPECT_EQ(queue11->hwirq, "524300-edge");
  EXPECT_EQ(queue11->actions, "eth0-TxRx-11");
  EXPECT_EQ(queue11->per_cpu[11], 9137215u + 4099u * 11);
  EXPECT_EQ(table->cpu_ids[11], 13);

  const InterruptLine* shared = Find(*table, "16");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->hwirq, "16-fasteoi");
  EXPECT_EQ(shared->actions, "i801_smbus, ehci_hcd:usb1");

  // A vector whose handler is gone but which fired: counts, chip and hwirq, no action.
  const InterruptLine* orphan = Find(*table, "1043");
  ASSERT_NE(orphan, nullptr);
  EXPECT_EQ(orphan->irq, 1043u);
  EXPECT_EQ(orphan->total, 17u);
  EXPECT_EQ(orphan->hwirq, "1572864-edge");
  EXPECT_EQ(orphan->actions, "");

  const InterruptLine* mis = Find(*table, "MIS");
  ASSERT_NE(mis, nullptr);
  EXPECT_TRUE(mis->per_cpu.empty());
  const InterruptLine* piw = Find(*table, "PIW");
  ASSERT_NE(piw, nullptr);
  EXPECT_EQ(piw->per_cpu.size(), 14u);
}

TEST(ParseInterrupts, OldKernelWithoutHwirqColumn) {
  absl::StatusOr<InterruptTable> table = ParseInterrupts(Fixture("x86_64_3.10_4cpu_nohwirq.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->cpu_count, 4);

  const InterruptLine* queue1 = Find(*table, "27");
  ASSERT_NE(queue1, nullptr);
  EXPECT_EQ(queue1->chip, "PCI-MSI-edge");
  EXPECT_EQ(queue1->hwirq, "");
  EXPECT_EQ(queue1->actions, "eth0-TxRx-1");
  EXPECT_THAT(queue1->per_cpu, ElementsAre(0, 3307351, 0, 0));

  const InterruptLine* usb = Find(*table, "16");
  ASSERT_NE(usb, nullptr);
  EXPECT_EQ(usb->chip, "IO-APIC-fasteoi");
  EXPECT_EQ(usb->actions, "ehci_hcd:usb1, uhci_hcd:usb6");
}

TEST(ParseInterrupts, TakesSymbolicRowsItDoesNotKnow) {
  const std::string text =
      "           CPU0       CPU1\n"
      " 41:       1367          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
      "XYZ:          5          6   Interrupts of a future kernel\n";
  absl::StatusOr<InterruptTable> table = ParseInterrupts(text);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->lines.size(), 2u);
  EXPECT_EQ(table->lines[0].per_cpu[0], 1367u);
  EXPECT_EQ(table->lines[1].id, "XYZ");
  EXPECT_EQ(table->lines[1].total, 11u);
  EXPECT_EQ(table->lines[1].actions, "Interrupts of a future kernel");
}

TEST(ParseInterrupts, ArmTriggerFollowedByFlowName) {
  const std::string text =
      "           CPU0\n"
      " 27:        100     GICv3  30 Level    -fasteoi  arch_timer\n";
  absl::StatusOr<InterruptTable> table = ParseInterrupts(text);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->lines[0].hwirq, "30-fasteoi");
  EXPECT_EQ(table->lines[0].trigger, "Level");
  EXPECT_EQ(table->lines[0].actions, "arch_timer");
}

struct MalformedCase {
  std::string name;
  std::string text;
  std::string message;
};

class ParseInterruptsMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(ParseInterruptsMalformed, ErrorNamesFileAndLine) {
  absl::StatusOr<InterruptTable> table = ParseInterrupts(GetParam().text, "/fake/interrupts");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(table.status().message()), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseInterruptsMalformed,
    ::testing::Values(
        MalformedCase{"Empty", "", "/fake/interrupts line 1: empty"},
        MalformedCase{"HeaderNotCpus", "   CPU0  CPUX\n",
                      "/fake/interrupts line 1: expected a header of CPUn columns, got \"CPUX\""},
        MalformedCase{"BlankHeader", "   \n 1: 0 IO-APIC 1-edge i8042\n",
                      "/fake/interrupts line 1: expected a header of CPUn columns"},
        MalformedCase{"TooFewCounts", "  CPU0 CPU1\n 41: 1 0 PCI 1-edge rx\n 42: 7 PCI 2-edge tx\n",
                      "/fake/interrupts line 3: irq 42: expected 2 per-CPU counts, got 1"},
        MalformedCase{"NoLabel", "  CPU0 CPU1\n 1 2 3\n",
                      "/fake/interrupts line 2: expected \"IRQ:\" or \"NAME:\" at the start"},
        MalformedCase{"NoChip", "  CPU0 CPU1\n 41: 1 0\n",
                      "/fake/interrupts line 2: irq 41: missing the interrupt chip name"},
        MalformedCase{"HugeIrqNumber", "  CPU0\n 99999999999: 1 PCI 1-edge rx\n",
                      "/fake/interrupts line 2: irq number \"99999999999\" is not a u32"},
        MalformedCase{"SymbolicPartialCounts", "  CPU0 CPU1 CPU2\nLOC: 1 2 Local timer\n",
                      "/fake/interrupts line 2: LOC: expected 3 per-CPU counts or a single "
                      "total, got 2 followed by text"},
        MalformedCase{"SymbolicNoCounts", "  CPU0 CPU1\nNMI: Non-maskable\n",
                      "/fake/interrupts line 2: NMI: expected 2 per-CPU counts or a single "
                      "total, got 0"},
        MalformedCase{"NegativeCount", "  CPU0 CPU1\n 41: -1 0 PCI 1-edge rx\n",
                      "/fake/interrupts line 2: irq 41: expected 2 per-CPU counts, got 0"}),
    [](const ::testing::TestParamInfo<MalformedCase>& param_info) {
      return param_info.param.name;
    });

TEST(ParseInterrupts, LiveProcInterruptsParsesAndCountsOnlyGrow) {
  absl::StatusOr<std::string> first_text = ReadFile("/proc/interrupts");
  ASSERT_TRUE(first_text.ok()) << first_text.status();
  absl::StatusOr<InterruptTable> first = ParseInterrupts(*first_text);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::string> second_text = ReadFile("/proc/interrupts");
  ASSERT_TRUE(second_text.ok()) << second_text.status();
  absl::StatusOr<InterruptTable> second = ParseInterrupts(*second_text);
  ASSERT_TRUE(second.ok()) << second.status();

  ASSERT_GT(first->cpu_count, 0);
  const InterruptLine* first_loc = Find(*first, "LOC");
  const InterruptLine* second_loc = Find(*second, "LOC");
  if (first_loc != nullptr && second_loc != nullptr) {  // x86 only
    EXPECT_GE(second_loc->total, first_loc->total);
  }
  int numbered = 0;
  for (const InterruptLine& line : first->lines) {
    if (!line.irq.has_value()) continue;
    ++numbered;
    EXPECT_EQ(line.per_cpu.size(), static_cast<size_t>(first->cpu_count)) << line.id;
    EXPECT_FALSE(line.chip.empty()) << line.id;
    const InterruptLine* later = Find(*second, line.id);
    if (later != nullptr) {
      EXPECT_GE(later->total, line.total) << line.id;
    }
  }
  EXPECT_GT(numbered, 0);
}

}  // namespace
}  // namespace nictune::procfs
