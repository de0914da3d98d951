// SPDX-License-Identifier: Apache-2.0
// The queue map: pure building from irq names and netdev netlink, the reader on fake /proc and
// /sys trees shaped like real hosts (ixgbe, virtio_net, mlx5), and one real read of this host.
#include "agent/collect/queue_map.h"

#include <net/if.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/procfs/cpu_list.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "driver/netlink/netdev_netlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::collect {
namespace {

namespace fs = std::filesystem;
using driver::netlink::NapiInfo;
using driver::netlink::NetdevQueue;
using driver::netlink::NetdevQueueType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Describe(const QueueBinding& b) {
  return absl::StrCat(b.device, " ", std::string(QueueKindName(b.kind)), " ", b.queue, " irq ",
                      b.irq ? absl::StrCat(*b.irq) : "-", " napi ",
                      b.napi_id ? absl::StrCat(*b.napi_id) : "-", " cpus ",
                      absl::StrJoin(b.cpus, ","), " ", b.source);
}

std::vector<std::string> DescribeAll(const std::vector<QueueBinding>& bindings) {
  std::vector<std::string> out;
  for (const QueueBinding& b : bindings) out.push_back(Describe(b));
  return out;
}

procfs::InterruptTable Interrupts(const std::string& text) {
  absl::StatusOr<procfs::InterruptTable> table = procfs::ParseInterrupts(text, "test");
  EXPECT_TRUE(table.ok()) << table.status();
  return table.value_or(procfs::InterruptTable{});
}

std::string ReadFixture(const std::string& relative) {
  absl::StatusOr<std::string> text =
      procfs::ReadFile(testing_support::FixturesDir() + "/" + relative);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

// ---- A fake host: <root>/proc and <root>/sys laid out like the kernel's ----

class FakeHost {
 public:
  FakeHost() {
    std::string pattern = (fs::temp_directory_path() / "nictune-queue-map-XXXXXX").native();
    root_ = ::mkdtemp(pattern.data()) != nullptr ? fs::path(pattern) : fs::path();
    fs::create_directories(root_ / "proc");
    fs::create_directories(root_ / "sys" / "class" / "net");
  }
  ~FakeHost() {
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }

  CollectorPaths Paths() const { return {(root_ / "proc").native(), (root_ / "sys").native()}; }

  void Write(const fs::path& relative, const std::string& content) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << content;
  }

  void Interrupts(const std::string& text) { Write("proc/interrupts", text); }

  // kthreadd's children, each with its comm.
  void KernelThreads(const std::map<uint32_t, std::string>& comms) {
    std::string children;
    for (const auto& [pid, comm] : comms) {
      absl::StrAppend(&children, pid, " ");
      Write(absl::StrCat("proc/", pid, "/comm"), comm + "\n");
    }
    Write("proc/2/task/2/children", children);
  }

  void Affinity(uint32_t irq, const std::string& smp, std::optional<std::string> effective) {
    Write(absl::StrCat("proc/irq/", irq, "/smp_affinity_list"), smp + "\n");
    if (effective)
      Write(absl::StrCat("proc/irq/", irq, "/effective_affinity_list"), *effective + "\n");
  }

  // A device under /sys/class/net whose `device` link points at sys/<bus_path> (empty: virtual).
  void NetDevice(const std::string& name, int ifindex, const std::string& bus_path,
                 const std::string& driver, const std::vector<int>& msi_irqs_at,
                 const std::string& msi_path) {
    const fs::path dir = fs::path("sys/class/net") / name;
    Write(dir / "ifindex", absl::StrCat(ifindex, "\n"));
    Write(dir / "statistics" / "rx_packets", "0\n");
    fs::create_directories(root_ / dir / "queues" / "rx-0");
    fs::create_directories(root_ / dir / "queues" / "tx-0");
    if (bus_path.empty()) return;
    fs::create_directories(root_ / "sys" / bus_path);
    fs::create_symlink(fs::path("../../..") / bus_path, root_ / dir / "device");
    fs::create_symlink(fs::path("/sys/bus/drivers") / driver, root_ / "sys" / bus_path / "driver");
    for (int irq : msi_irqs_at)
      Write(fs::path("sys") / msi_path / "msi_irqs" / absl::StrCat(irq), "msix\n");
  }

 private:
  fs::path root_;
};

class FakeTopology : public driver::netlink::NetdevTopology {
 public:
  absl::StatusOr<std::vector<NapiInfo>> ListNapis(std::optional<int32_t>) override { return napis; }
  absl::StatusOr<std::vector<NetdevQueue>> ListQueues(std::optional<int32_t>) override {
    return queues;
  }
  absl::StatusOr<std::vector<NapiInfo>> napis = std::vector<NapiInfo>{};
  absl::StatusOr<std::vector<NetdevQueue>> queues = std::vector<NetdevQueue>{};
};

// ---- Reader on fake trees ----

TEST(QueueMapReaderTest, IxgbeStyleNamesGiveCombinedQueuesAndEffectiveAffinityWins) {
  FakeHost host;
  // Recorded on a 16-CPU ixgbe host: eth0 (link irq 28) and eth0-TxRx-0..11 on irqs 29..40.
  host.Interrupts(ReadFixture("interrupts/x86_64_5.4_16cpu_2offline.txt"));
  std::vector<int> msi;
  for (int irq = 28; irq <= 40; ++irq) msi.push_back(irq);
  host.NetDevice("eth0", 2, "devices/pci0000:00/0000:03:00.0", "ixgbe", msi,
                 "devices/pci0000:00/0000:03:00.0");
  host.Affinity(29, "0-15", "2");
  host.Affinity(30, "3", std::nullopt);  // kernels before 4.15 have no effective_affinity_list
  host.Affinity(31, "0-15", "");         // present but empty: fall back to smp_affinity_list

  absl::StatusOr<QueueMap> map = ReadQueueMap(host.Paths(), nullptr);
  ASSERT_TRUE(map.ok()) << map.status();
  ASSERT_EQ(map->bindings.size(), 12u) << absl::StrJoin(DescribeAll(map->bindings), "\n");
  for (int q = 0; q < 12; ++q) {
    const QueueBinding& b = map->bindings[static_cast<size_t>(q)];
    EXPECT_EQ(b.device, "eth0");
    EXPECT_EQ(b.ifindex, 2);
    EXPECT_EQ(b.kind, QueueKind::kCombined);
    EXPECT_EQ(b.queue, q);
    EXPECT_EQ(b.irq, static_cast<uint32_t>(29 + q));
    EXPECT_EQ(b.source, kSourceIrqName);
    EXPECT_FALSE(b.napi_id.has_value());
  }
  EXPECT_THAT(map->bindings[0].cpus, ElementsAre(2));
  EXPECT_THAT(map->bindings[1].cpus, ElementsAre(3));
  EXPECT_EQ(map->bindings[2].cpus.size(), 16u);
  EXPECT_THAT(map->bindings[3].cpus, IsEmpty());  // no affinity file in the fake tree
  // Only the missing netlink is worth a note; the empty effective list is not a problem.
  EXPECT_THAT(map->notes, ElementsAre(HasSubstr("queues mapped from /proc/interrupts names")));
}

TEST(QueueMapReaderTest, VirtioStyleNamesUseTheVirtioBusIdAndSkipOtherVirtioDevices) {
  FakeHost host;
  // Recorded on this kind of VM: virtio2 is eth0 (input.0 = 38, output.0 = 39); virtio3 is the
  // vsock device whose "virtio3-rx"/"virtio3-tx" must not be taken for a NIC.
  host.Interrupts(ReadFixture("interrupts/x86_64_6.18_2cpu.txt"));
  host.NetDevice("eth0", 4, "devices/pci0000:00/0000:00:03.0/virtio2", "virtio_net", {37, 38, 39},
                 "devices/pci0000:00/0000:00:03.0");
  host.NetDevice("lo", 1, "", "", {}, "");
  host.Affinity(38, "0-1", "1");
  host.Affinity(39, "0-1", "0");
  FakeTopology netlink;
  netlink.napis =
      absl::UnimplementedError("netdev netlink: napi-get not supported by this kernel (no family)");

  absl::StatusOr<QueueMap> map = ReadQueueMap(host.Paths(), &netlink);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(DescribeAll(map->bindings),
              ElementsAre("eth0 rx 0 irq 38 napi - cpus 1 procfs-irq-name",
                          "eth0 tx 0 irq 39 napi - cpus 0 procfs-irq-name"));
  EXPECT_THAT(absl::StrJoin(map->notes, "\n"), HasSubstr("napi-get not supported"));
}

TEST(QueueMapReaderTest, NetlinkMapsTheDeviceAndNamesFillAnIrqItLacks) {
  FakeHost host;
  host.Interrupts(ReadFixture("interrupts/x86_64_6.18_2cpu.txt"));
  host.NetDevice("eth0", 4, "devices/pci0000:00/0000:00:03.0/virtio2", "virtio_net", {37, 38, 39},
                 "devices/pci0000:00/0000:00:03.0");
  host.Affinity(38, "0-1", "1");
  host.Affinity(39, "0-1", "0");
  // What this kernel (6.18, virtio_net) really answers: one NAPI, on rx 0, with no irq linked;
  // tx 0 without a NAPI. Netlink gives the NAPI, the names give both irqs.
  FakeTopology netlink;
  netlink.napis = std::vector<NapiInfo>{{.id = 257, .ifindex = 4}};
  netlink.queues = std::vector<NetdevQueue>{
      {.id = 0, .type = NetdevQueueType::kRx, .ifindex = 1},  // lo: no NAPI, left out
      {.id = 0, .type = NetdevQueueType::kRx, .ifindex = 4, .napi_id = 257},
      {.id = 0, .type = NetdevQueueType::kTx, .ifindex = 4}};
  // A container's threaded veth polls in napi/eth0-1316, which this namespace's netlink does not
  // name; the other kernel threads are no pollers.
  host.KernelThreads({{30, "kworker/0:1"}, {41, "napi/eth0-1316"}, {52, "ksoftirqd/1"}});

  absl::StatusOr<QueueMap> map = ReadQueueMap(host.Paths(), &netlink);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(DescribeAll(map->bindings),
              ElementsAre("eth0 rx 0 irq 38 napi 257 cpus 1 procfs-irq-name",
                          "eth0 tx 0 irq 39 napi - cpus 0 procfs-irq-name"));
  EXPECT_THAT(map->notes, IsEmpty());
  EXPECT_THAT(map->other_napi_threads, ElementsAre(41u));
  EXPECT_THAT(map->napi_threads, IsEmpty());

  // Once this namespace's eth0 polls in napi/eth0-1316 too (the same pid: netlink names it),
  // it is ours.
  netlink.napis = std::vector<NapiInfo>{{.id = 257, .ifindex = 4, .pid = 41}};
  map = ReadQueueMap(host.Paths(), &netlink);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(map->other_napi_threads, IsEmpty());
  ASSERT_EQ(map->napi_threads.size(), 1u);
  EXPECT_EQ(map->napi_threads[0].pid, 41u);
  netlink.napis = std::vector<NapiInfo>{{.id = 257, .ifindex = 4}};

  // A host of many containers: the first 256 by pid are watched, and a note says so.
  std::map<uint32_t, std::string> many;
  for (uint32_t pid = 1000; pid < 1300; ++pid) many[pid] = absl::StrCat("napi/eth0-", pid);
  host.KernelThreads(many);
  map = ReadQueueMap(host.Paths(), &netlink);
  ASSERT_TRUE(map.ok()) << map.status();
  ASSERT_EQ(map->other_napi_threads.size(), 256u);
  EXPECT_EQ(map->other_napi_threads.front(), 1000u);
  EXPECT_EQ(map->other_napi_threads.back(), 1255u);
  EXPECT_THAT(map->notes, ElementsAre("other namespaces' NAPI pollers: 300 found, the first 256 "
                                      "by pid watched"));

  // A driver that links its NAPIs to irqs makes netlink the source of the irq too.
  netlink.napis = std::vector<NapiInfo>{{.id = 257, .ifindex = 4, .irq = 38}};
  map = ReadQueueMap(host.Paths(), &netlink);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(DescribeAll(map->bindings),
              ElementsAre("eth0 rx 0 irq 38 napi 257 cpus 1 netdev-netlink",
                          "eth0 tx 0 irq 39 napi - cpus 0 procfs-irq-name"));
}

TEST(QueueMapReaderTest, MissingInterruptsFileIsAnErrorNamingIt) {
  FakeHost host;
  absl::StatusOr<QueueMap> map = ReadQueueMap(host.Paths(), nullptr);
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(std::string(map.status().message()), HasSubstr("/proc/interrupts"));
}

// ---- Pure building ----

QueueMapDevice Pci(const std::string& name, int32_t ifindex, const std::string& pci,
                   std::vector<int> msi) {
  return QueueMapDevice{name, ifindex, pci, pci, std::move(msi)};
}

TEST(BuildQueueMapTest, Mlx5CompletionVectorsTieByPciAddressOrMsiIrqs) {
  QueueMapInputs in;
  in.devices = {Pci("ens1f0np0", 5, "0000:3b:00.0", {90, 91, 92}),
                Pci("ens1f1np1", 6, "0000:3b:00.1", {100, 101, 102, 103})};
  in.interrupts = Interrupts(
      "           CPU0       CPU1\n"
      " 90:          1          0  IR-PCI-MSIX-0000:3b:00.0    0-edge      "
      "mlx5_async0@pci:0000:3b:00.0\n"
      " 91:        100          0  IR-PCI-MSIX-0000:3b:00.0    1-edge      "
      "mlx5_comp0@pci:0000:3b:00.0\n"
      " 92:          0        200  IR-PCI-MSIX-0000:3b:00.0    2-edge      "
      "mlx5_comp1@pci:0000:3b:00.0\n"
      "101:          5          0  IR-PCI-MSIX-0000:3b:00.1    1-edge      "
      "mlx5_comp0@pci:0000:3b:00.1\n"
      // Kernels before 4.14 named the vectors without the PCI address: msi_irqs ties them.
      "102:          5          0  IR-PCI-MSIX-0000:3b:00.1    2-edge      mlx5_comp1\n"
      // Not one of ours: no tie at all, left out.
      "120:          5          0  IR-PCI-MSIX-0000:5e:00.0    2-edge      mlx5_comp7\n");
  in.affinity[91] = IrqAffinity{{0, 1}, std::vector<int>{0}};
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("ens1f0np0 combined 0 irq 91 napi - cpus 0 procfs-irq-name",
                          "ens1f0np0 combined 1 irq 92 napi - cpus  procfs-irq-name",
                          "ens1f1np1 combined 0 irq 101 napi - cpus  procfs-irq-name",
                          "ens1f1np1 combined 1 irq 102 napi - cpus  msi_irqs"));
}

TEST(BuildQueueMapTest, OtherDriversNamingPatterns) {
  QueueMapInputs in;
  in.devices = {Pci("eth1", 3, "0000:18:00.0", {}), Pci("ens5", 4, "0000:00:05.0", {}),
                Pci("eth2", 5, "0000:02:00.0", {}), Pci("enp1s0", 6, "0000:01:00.0", {}),
                Pci("eth3", 7, "0000:0b:00.0", {}), Pci("ens4", 8, "0000:00:04.0", {})};
  in.interrupts = Interrupts(
      "           CPU0\n"
      " 50:          1  IR-PCI-MSI-0000:18:00.0    1-edge      i40e-eth1-TxRx-2\n"
      " 51:          1  IR-PCI-MSI-0000:18:00.0    0-edge      i40e-0000:18:00.0:misc\n"
      " 52:          1  PCI-MSI-0000:00:05.0    1-edge      ens5-Tx-Rx-0\n"
      " 53:          1  PCI-MSI-0000:00:05.0    0-edge      ena-mgmnt@pci:0000:00:05.0\n"
      " 54:          1  PCI-MSI-0000:02:00.0    0-edge      eth2-rx-0\n"
      " 55:          1  PCI-MSI-0000:02:00.0    1-edge      eth2-tx-0\n"
      " 56:          1  PCI-MSI-0000:02:00.0    2-edge      eth2\n"
      " 57:          1  PCI-MSI-0000:01:00.0    1-edge      enp1s0-0\n"
      " 58:          1  PCI-MSI-0000:0b:00.0    1-edge      eth3-rxtx-1\n"
      // gve: 4 notify blocks, the first half serve tx queues and the second half rx queues.
      " 60:          1  PCI-MSIX-0000:00:04.0    0-edge      gve-ntfy-blk0@pci:0000:00:04.0\n"
      " 61:          1  PCI-MSIX-0000:00:04.0    1-edge      gve-ntfy-blk1@pci:0000:00:04.0\n"
      " 62:          1  PCI-MSIX-0000:00:04.0    2-edge      gve-ntfy-blk2@pci:0000:00:04.0\n"
      " 63:          1  PCI-MSIX-0000:00:04.0    3-edge      gve-ntfy-blk3@pci:0000:00:04.0\n"
      " 64:          1  PCI-MSIX-0000:00:04.0    4-edge      gve-mgmnt@pci:0000:00:04.0\n");
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("enp1s0 combined 0 irq 57 napi - cpus  procfs-irq-name",
                          "ens4 rx 0 irq 62 napi - cpus  procfs-irq-name",
                          "ens4 tx 0 irq 60 napi - cpus  procfs-irq-name",
                          "ens4 rx 1 irq 63 napi - cpus  procfs-irq-name",
                          "ens4 tx 1 irq 61 napi - cpus  procfs-irq-name",
                          "ens5 combined 0 irq 52 napi - cpus  procfs-irq-name",
                          "eth1 combined 2 irq 50 napi - cpus  procfs-irq-name",
                          "eth2 rx 0 irq 54 napi - cpus  procfs-irq-name",
                          "eth2 tx 0 irq 55 napi - cpus  procfs-irq-name",
                          "eth3 combined 1 irq 58 napi - cpus  procfs-irq-name"));
}

TEST(BuildQueueMapTest, SimilarDeviceNamesDoNotCapture) {
  QueueMapInputs in;
  in.devices = {Pci("eth1", 3, "0000:18:00.0", {}), Pci("eth10", 4, "0000:19:00.0", {})};
  in.interrupts = Interrupts(
      "           CPU0\n"
      " 50:          1  PCI-MSI    1-edge      eth10-TxRx-0\n"
      " 51:          1  PCI-MSI    1-edge      eth1-TxRx-0\n"
      " 52:          1  PCI-MSI    1-edge      xeth1-TxRx-1\n");
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("eth1 combined 0 irq 51 napi - cpus  procfs-irq-name",
                          "eth10 combined 0 irq 50 napi - cpus  procfs-irq-name"));
}

TEST(BuildQueueMapTest, RenamedDeviceIsTiedByItsMsiIrqs) {
  // udev renamed eth0 to enp3s0f0 after the driver had requested "eth0-TxRx-N".
  QueueMapInputs in;
  in.devices = {Pci("enp3s0f0", 2, "0000:03:00.0", {28, 29, 30}),
                Pci("enp3s0f1", 3, "0000:03:00.1", {31})};
  in.interrupts = Interrupts(
      "           CPU0\n"
      " 28:          1  IR-PCI-MSI 524288-edge      eth0\n"
      " 29:          1  IR-PCI-MSI 524289-edge      eth0-TxRx-0\n"
      " 30:          1  IR-PCI-MSI 524290-edge      eth0-TxRx-1\n"
      " 44:          1  IR-PCI-MSI 524290-edge      eth9-TxRx-1\n");
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("enp3s0f0 combined 0 irq 29 napi - cpus  msi_irqs",
                          "enp3s0f0 combined 1 irq 30 napi - cpus  msi_irqs"));
}

TEST(BuildQueueMapTest, NetlinkPairsRxAndTxOfOneNapiIntoACombinedQueue) {
  QueueMapInputs in;
  in.devices = {Pci("eth0", 2, "0000:03:00.0", {29, 30}), Pci("eth1", 3, "0000:03:00.1", {40})};
  in.interrupts = Interrupts(
      "           CPU0       CPU1\n"
      " 29:          1          0  PCI-MSI    1-edge      eth0-TxRx-0\n"
      " 30:          1          0  PCI-MSI    2-edge      eth0-TxRx-1\n"
      " 40:          1          0  PCI-MSI    2-edge      eth1-TxRx-0\n");
  in.affinity[29] = IrqAffinity{{0, 1}, std::vector<int>{1}};
  in.affinity[30] = IrqAffinity{{0}, std::nullopt};
  in.napis = std::vector<NapiInfo>{{.id = 9001, .ifindex = 2, .irq = 29},
                                   {.id = 9002, .ifindex = 2, .irq = 30},
                                   {.id = 9003, .ifindex = 2, .irq = 31}};
  in.queues = std::vector<NetdevQueue>{
      {.id = 0, .type = NetdevQueueType::kRx, .ifindex = 2, .napi_id = 9001},
      {.id = 0, .type = NetdevQueueType::kTx, .ifindex = 2, .napi_id = 9001},
      {.id = 1, .type = NetdevQueueType::kRx, .ifindex = 2, .napi_id = 9002},
      {.id = 1, .type = NetdevQueueType::kTx, .ifindex = 2, .napi_id = 9003}};
  // eth1 has no NAPI in netlink (driver without queue<->napi links): its name still maps it.
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("eth0 combined 0 irq 29 napi 9001 cpus 1 netdev-netlink",
                          "eth0 rx 1 irq 30 napi 9002 cpus 0 netdev-netlink",
                          "eth0 tx 1 irq 31 napi 9003 cpus  netdev-netlink",
                          "eth1 combined 0 irq 40 napi - cpus  procfs-irq-name"));
}

// Threaded NAPI: netlink names each instance's poller thread, which every queue it polls carries.
TEST(BuildQueueMapTest, NetlinkNamesEachQueuesPollerThreadWhenThreaded) {
  QueueMapInputs in;
  in.devices = {Pci("eth0", 2, "0000:03:00.0", {29})};
  in.interrupts = Interrupts(
      "           CPU0       CPU1\n"
      " 29:          1          0  PCI-MSI    1-edge      eth0-TxRx-0\n");
  in.napis = std::vector<NapiInfo>{{.id = 9001, .ifindex = 2, .irq = 29, .pid = 812},
                                   {.id = 9002, .ifindex = 2}};
  in.queues = std::vector<NetdevQueue>{
      {.id = 0, .type = NetdevQueueType::kRx, .ifindex = 2, .napi_id = 9001},
      {.id = 0, .type = NetdevQueueType::kTx, .ifindex = 2, .napi_id = 9001},
      {.id = 1, .type = NetdevQueueType::kRx, .ifindex = 2, .napi_id = 9002}};
  const std::vector<QueueBinding> bindings = BuildQueueMap(in);
  ASSERT_EQ(bindings.size(), 2u);
  EXPECT_EQ(bindings[0].napi_thread, 812u);
  EXPECT_EQ(bindings[1].napi_thread, std::nullopt);  // polled in softirq
}

TEST(NapiThreadsOfTest, EveryThreadedInstanceOfAKnownDeviceWhateverItsQueues) {
  // veth on 6.18 links no queue to its instances; netlink still names their pollers. An instance
  // polled in softirq has none, and one of a device /sys/class/net does not list is left out.
  QueueMapInputs in;
  in.devices = {{.name = "veth1", .ifindex = 7}, {.name = "eth0", .ifindex = 2}};
  in.napis = std::vector<NapiInfo>{{.id = 9101, .ifindex = 7, .pid = 860},
                                   {.id = 9100, .ifindex = 7, .pid = 850},
                                   {.id = 9002, .ifindex = 2},
                                   {.id = 9300, .ifindex = 40, .pid = 870}};
  const std::vector<NapiThread> threads = NapiThreadsOf(in);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].device, "veth1");
  EXPECT_EQ(threads[0].napi_id, 9100u);
  EXPECT_EQ(threads[0].pid, 850u);
  EXPECT_EQ(threads[1].napi_id, 9101u);
  EXPECT_EQ(threads[1].pid, 860u);
  EXPECT_TRUE(NapiThreadsOf(QueueMapInputs{}).empty());  // netdev netlink unavailable
}

TEST(BuildQueueMapTest, SharedIrqLinesAreSplitIntoTheirActions) {
  QueueMapInputs in;
  in.devices = {Pci("eth0", 2, "0000:03:00.0", {})};
  in.interrupts = Interrupts(
      "           CPU0\n"
      " 16:          1  IO-APIC   16-fasteoi   ehci_hcd:usb1, eth0-rx-0\n");
  EXPECT_THAT(DescribeAll(BuildQueueMap(in)),
              ElementsAre("eth0 rx 0 irq 16 napi - cpus  procfs-irq-name"));
}

// ---- This host ----

std::string IrqName(uint32_t irq) {
  absl::StatusOr<std::string> text = procfs::ReadFile("/proc/interrupts");
  if (!text.ok()) return "";
  absl::StatusOr<procfs::InterruptTable> table = procfs::ParseInterrupts(*text);
  if (!table.ok()) return "";
  for (const procfs::InterruptLine& line : table->lines) {
    if (line.irq == irq) return line.actions;
  }
  return "";
}

std::vector<int> DeliveredTo(uint32_t irq) {
  const std::string dir = absl::StrCat("/proc/irq/", irq, "/");
  absl::StatusOr<std::string> text = procfs::ReadFile(dir + "effective_affinity_list");
  if (!text.ok() || text->find_first_of("0123456789") == std::string::npos) {
    text = procfs::ReadFile(dir + "smp_affinity_list");
  }
  if (!text.ok()) return {};
  return procfs::ParseCpuList(*text, dir).value_or(std::vector<int>{});
}

TEST(QueueMapRealHostTest, RealNicQueuesMapToTheIrqsNamedAfterThem) {
  const fs::path device_link = "/sys/class/net/eth0/device";
  if (!fs::exists(device_link)) GTEST_SKIP() << "no eth0 here";
  const std::string virtio = fs::read_symlink(device_link).filename().native();
  if (virtio.rfind("virtio", 0) != 0) GTEST_SKIP() << "eth0 is not virtio_net here";

  absl::StatusOr<std::unique_ptr<driver::netlink::NetdevTopology>> netlink =
      driver::netlink::OpenNetdevNetlink();
  ASSERT_TRUE(netlink.ok()) << netlink.status();
  absl::StatusOr<QueueMap> with_netlink = ReadQueueMap(CollectorPaths{}, netlink->get());
  ASSERT_TRUE(with_netlink.ok()) << with_netlink.status();
  absl::StatusOr<QueueMap> by_names = ReadQueueMap(CollectorPaths{}, nullptr);
  ASSERT_TRUE(by_names.ok()) << by_names.status();

  std::map<std::pair<QueueKind, int>, const QueueBinding*> named;
  for (const QueueBinding& b : by_names->bindings) {
    if (b.device == "eth0") named[{b.kind, b.queue}] = &b;
  }
  absl::StatusOr<std::vector<driver::netlink::NetdevQueue>> queues =
      (*netlink)->ListQueues(static_cast<int32_t>(if_nametoindex("eth0")));
  ASSERT_TRUE(queues.ok()) << queues.status();
  absl::StatusOr<std::vector<driver::netlink::NapiInfo>> napis =
      (*netlink)->ListNapis(static_cast<int32_t>(if_nametoindex("eth0")));
  ASSERT_TRUE(napis.ok()) << napis.status();

  int checked = 0;
  int with_napi = 0;
  for (const QueueBinding& b : with_netlink->bindings) {
    if (b.device != "eth0") continue;
    SCOPED_TRACE(Describe(b));
    EXPECT_EQ(b.ifindex, static_cast<int32_t>(if_nametoindex("eth0")));
    ASSERT_TRUE(b.irq.has_value());
    ASSERT_NE(b.kind, QueueKind::kCombined);  // virtio_net: separate rx and tx vectors
    EXPECT_EQ(IrqName(*b.irq),
              absl::StrCat(virtio, b.kind == QueueKind::kRx ? "-input." : "-output.", b.queue));
    EXPECT_EQ(b.cpus, DeliveredTo(*b.irq));
    // The NAPI is the one queue-get names for this queue, and the irq's source is netlink only
    // when that NAPI carries the irq.
    std::optional<uint32_t> queue_napi;
    for (const driver::netlink::NetdevQueue& q : *queues) {
      const QueueKind kind = q.type == NetdevQueueType::kRx ? QueueKind::kRx : QueueKind::kTx;
      if (static_cast<int>(q.id) == b.queue && kind == b.kind) queue_napi = q.napi_id;
    }
    EXPECT_EQ(b.napi_id, queue_napi);
    std::optional<uint32_t> napi_irq;
    for (const driver::netlink::NapiInfo& napi : *napis) {
      if (b.napi_id == napi.id) napi_irq = napi.irq;
    }
    EXPECT_EQ(b.source, napi_irq ? kSourceNetdevNetlink : kSourceIrqName);
    if (napi_irq) {
      EXPECT_EQ(*napi_irq, *b.irq);
    }
    with_napi += b.napi_id ? 1 : 0;
    // Without netlink, the names alone give the same irq.
    auto by_name = named.find({b.kind, b.queue});
    ASSERT_NE(by_name, named.end());
    EXPECT_EQ(by_name->second->irq, b.irq);
    EXPECT_EQ(by_name->second->source, kSourceIrqName);
    EXPECT_FALSE(by_name->second->napi_id.has_value());
    ++checked;
  }
  EXPECT_GE(checked, 2);    // rx 0 and tx 0 at least
  EXPECT_GE(with_napi, 1);  // rx 0 is polled by a NAPI netlink reports
}

}  // namespace
}  // namespace nictune::collect
