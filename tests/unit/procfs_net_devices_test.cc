// SPDX-License-Identifier: Apache-2.0
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agent/procfs/net_devices.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::procfs {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A sysfs look-alike: class/net holds symlinks into devices/, as on a real host, with values
// copied from a real ixgbe port and a loopback device.
class FakeSysClassNet : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "nictune-sysfs-XXXXXX").native();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    class_net_ = root_ / "class" / "net";
    fs::create_directories(class_net_);

    const fs::path pci = root_ / "devices" / "pci0000:00" / "0000:3b:00.0";
    const fs::path eth7 = pci / "net" / "eth7";
    Write(eth7 / "ifindex", "4\n");
    Write(eth7 / "statistics" / "rx_packets", "918230455\n");
    Write(eth7 / "statistics" / "rx_bytes", "9812233100441\n");
    Write(eth7 / "statistics" / "rx_dropped", "0\n");
    Write(eth7 / "statistics" / "rx_missed_errors", "1207\n");
    Write(eth7 / "statistics" / "tx_packets", "840012331\n");
    for (const char* queue :
         {"rx-0", "rx-1", "rx-2", "rx-3", "tx-0", "tx-1", "tx-2", "tx-3", "tx-4", "tx-5"}) {
      fs::create_directories(eth7 / "queues" / queue);
    }
    fs::create_directory_symlink("../../../0000:3b:00.0", eth7 / "device");
    fs::create_directories(pci / "msi_irqs");
    for (const char* irq : {"100", "45", "46", "47"}) Write(pci / "msi_irqs" / irq, "msix\n");
    fs::create_directory_symlink("../../../bus/pci/drivers/ixgbe", pci / "driver");
    fs::create_directory_symlink("../../devices/pci0000:00/0000:3b:00.0/net/eth7",
                                 class_net_ / "eth7");

    const fs::path lo = root_ / "devices" / "virtual" / "net" / "lo";
    Write(lo / "ifindex", "1\n");
    Write(lo / "statistics" / "rx_packets", "2055\n");
    Write(lo / "statistics" / "tx_packets", "2055\n");
    fs::create_directories(lo / "queues" / "rx-0");
    fs::create_directories(lo / "queues" / "tx-0");
    fs::create_directory_symlink("../../devices/virtual/net/lo", class_net_ / "lo");

    // The bonding driver's control file, and a veth that was deleted between listing and reading.
    Write(class_net_ / "bonding_masters", "\n");
    fs::create_directory_symlink("../../devices/virtual/net/veth9", class_net_ / "veth9");
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  static void Write(const fs::path& file, const std::string& content) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << content;
  }

  fs::path root_;
  fs::path class_net_;
};

TEST_F(FakeSysClassNet, ReadsPhysicalAndVirtualDevicesSkippingNonDevices) {
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices(class_net_.native());
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 2u);

  const NetDevice& eth7 = (*devices)[0];
  EXPECT_EQ(eth7.name, "eth7");
  EXPECT_EQ(eth7.ifindex, 4);
  EXPECT_EQ(eth7.driver, "ixgbe");
  EXPECT_EQ(eth7.rx_queues, 4);
  EXPECT_EQ(eth7.tx_queues, 6);
  EXPECT_THAT(eth7.msi_irqs, ElementsAre(45, 46, 47, 100));
  EXPECT_EQ(eth7.statistics.size(), 5u);
  EXPECT_EQ(eth7.statistics.at("rx_bytes"), 9812233100441u);
  EXPECT_EQ(eth7.statistics.at("rx_missed_errors"), 1207u);

  const NetDevice& lo = (*devices)[1];
  EXPECT_EQ(lo.name, "lo");
  EXPECT_EQ(lo.ifindex, 1);
  EXPECT_EQ(lo.driver, "");
  EXPECT_TRUE(lo.msi_irqs.empty());
  EXPECT_EQ(lo.rx_queues, 1);
  EXPECT_EQ(lo.statistics.at("tx_packets"), 2055u);
}

TEST_F(FakeSysClassNet, MalformedCounterIsAnErrorNamingItsFile) {
  Write(root_ / "devices" / "virtual" / "net" / "lo" / "statistics" / "rx_errors", "12abc\n");
  // Errors name the path under the directory the caller gave, as a person would look it up.
  const fs::path bad = class_net_ / "lo" / "statistics" / "rx_errors";
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices(class_net_.native());
  ASSERT_FALSE(devices.ok());
  EXPECT_THAT(std::string(devices.status().message()),
              HasSubstr(bad.native() + ": expected an unsigned counter, got \"12abc\""));
}

TEST_F(FakeSysClassNet, MalformedIfindexIsAnErrorNamingItsFile) {
  Write(root_ / "devices" / "virtual" / "net" / "lo" / "ifindex", "-3\n");
  const fs::path bad = class_net_ / "lo" / "ifindex";
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices(class_net_.native());
  ASSERT_FALSE(devices.ok());
  EXPECT_THAT(std::string(devices.status().message()),
              HasSubstr(bad.native() + ": expected a positive ifindex, got \"-3\""));
}

TEST_F(FakeSysClassNet, MissingPieceOfAPresentDeviceIsNotMistakenForAVanishedOne) {
  fs::remove_all(root_ / "devices" / "virtual" / "net" / "lo" / "queues");
  const fs::path queues = class_net_ / "lo" / "queues";
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices(class_net_.native());
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(devices.status().message()),
              HasSubstr("list " + queues.native() + ": No such file or directory (errno 2)"));
}

TEST(ReadNetDevices, MissingDirectoryNamesItAndTheErrno) {
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices("/nonexistent/class/net");
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(devices.status().message()),
              HasSubstr("list /nonexistent/class/net: No such file or directory (errno 2)"));
}

// Read-only look at this host's devices: loopback always, and the VM's eth0.
TEST(ReadNetDevices, RealSysClassNetHasLoopbackAndEth0) {
  absl::StatusOr<std::vector<NetDevice>> devices = ReadNetDevices("/sys/class/net");
  ASSERT_TRUE(devices.ok()) << devices.status();
  const NetDevice* lo = nullptr;
  const NetDevice* eth0 = nullptr;
  for (const NetDevice& device : *devices) {
    if (device.name == "lo") lo = &device;
    if (device.name == "eth0") eth0 = &device;
  }
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->ifindex, 1);
  EXPECT_EQ(lo->driver, "");
  EXPECT_GE(lo->rx_queues, 1);
  EXPECT_GE(lo->tx_queues, 1);
  EXPECT_TRUE(lo->statistics.count("rx_packets"));
  EXPECT_TRUE(lo->statistics.count("tx_dropped"));

  ASSERT_NE(eth0, nullptr);
  EXPECT_GT(eth0->ifindex, 1);
  EXPECT_FALSE(eth0->driver.empty());
  EXPECT_GE(eth0->rx_queues, 1);
  EXPECT_GE(eth0->tx_queues, 1);
  EXPECT_GT(eth0->statistics.at("rx_packets"), 0u);
  EXPECT_GT(eth0->statistics.at("rx_bytes"), eth0->statistics.at("rx_packets"));
}

}  // namespace
}  // namespace nictune::procfs
