// SPDX-License-Identifier: Apache-2.0
// How the probes name a device: by the kernel's name, qualified with its namespace only when a
// device of ours has the same name, so that an emulated NIC's TAP in its own namespace keeps its
// plain name while a container's "lo" is not taken for ours.
#include "absl/strings/str_cat.h"
#include "driver/bpf/device_names.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

TEST(DeviceNames, OursByKernelNameOrByIfindex) {
  const uint32_t ours = OwnNetnsInode();
  ASSERT_NE(ours, 0u) << "/proc/self/ns/net";
  EXPECT_EQ(DeviceName(1, ours, "lo"), "lo");
  EXPECT_EQ(DeviceName(1, ours, ""), "lo");  // ifindex 1 is every namespace's loopback
}

TEST(DeviceNames, AnotherNamespacesDeviceKeepsItsNameUnlessOursHasIt) {
  const uint32_t theirs = OwnNetnsInode() + 1;
  EXPECT_EQ(DeviceName(7, theirs, "emu-absent0"), "emu-absent0");
  EXPECT_EQ(DeviceName(1, theirs, "lo"), absl::StrCat("lo@netns ", theirs));
}

TEST(DeviceNames, UnnamedDeviceOfAnotherNamespaceIsNamedByIfindexAndNamespace) {
  const uint32_t theirs = OwnNetnsInode() + 1;
  EXPECT_EQ(DeviceName(2, theirs, ""), absl::StrCat("ifindex 2@netns ", theirs));
  EXPECT_EQ(DeviceName(0, 0, ""), "");
}

}  // namespace
}  // namespace nictune::driver::bpf
