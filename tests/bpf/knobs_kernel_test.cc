// SPDX-License-Identifier: Apache-2.0
// driver/knobs against the running kernel, on devices this test creates in a namespace it
// creates (veth pair, GRO on for NAPI instances) and deletes: sysfs and napi-set knobs are set,
// read back through an independent path, and restored; coalescing on veth is unsupported,
// cleanly; threaded NAPI starts and stops a thread per instance; on a TAP of its own, rx-frames is
// written and restored through ethtool netlink; one host sysctl is written and restored byte for
// byte by a guard that also runs when an assertion fails. Nothing reads or writes the host's own
// NIC.
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "driver/knobs/kernel_knob_provider.h"
#include "driver/knobs/napi_knob.h"
#include "driver/knobs/rx_ring.h"
#include "driver/netlink/ethtool_ioctl.h"
#include "driver/netlink/ethtool_reader.h"
#include "driver/netlink/netdev_netlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tuner/knob.h"

namespace nictune::driver::knobs {
namespace {

using ::testing::HasSubstr;
using testing_support::NetworkNamespace;
using tuner::Knob;

constexpr char kVeth[] = "nlkv0";
constexpr char kPeer[] = "nlkv1";
constexpr int kRxQueues = 2;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

// A namespace with a veth pair (kVeth with kRxQueues rx queues) in it, deleted on destruction.
absl::StatusOr<std::unique_ptr<NetworkNamespace>> VethNamespace() {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns =
      NetworkNamespace::Create(absl::StrCat("nt-kn-", getpid()));
  if (!netns.ok()) return netns.status();
  if (absl::Status s = (*netns)->Ip({"link", "add", kVeth, "numrxqueues", absl::StrCat(kRxQueues),
                                     "type", "veth", "peer", "name", kPeer});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = (*netns)->Ip({"link", "set", kVeth, "up"}); !s.ok()) return s;
  if (absl::Status s = (*netns)->Ip({"link", "set", kPeer, "up"}); !s.ok()) return s;
  return netns;
}

// Runs `fn(sys_root)` on a thread inside `netns` that sees that namespace's sysfs at sys_root:
// sysfs shows the devices of the namespace that mounts it, so the thread mounts a fresh one in a
// private mount namespace of its own (as `ip netns exec` does); nothing of it reaches the host.
absl::Status WithNamespaceSysfs(const NetworkNamespace& netns,
                                const std::function<void(const std::string&)>& fn) {
  absl::Status setup;
  std::string sys_root = (std::filesystem::temp_directory_path() / "nictune-sysfs-XXXXXX").native();
  if (mkdtemp(sys_root.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp: ", std::strerror(errno)));
  }
  absl::Status ran = netns.RunInside([&] {
    if (unshare(CLONE_NEWNS) != 0) {
      setup = absl::InternalError(absl::StrCat("unshare(CLONE_NEWNS): ", std::strerror(errno)));
      return;
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("sysfs", sys_root.c_str(), "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      setup = absl::InternalError(absl::StrCat("mount sysfs: ", std::strerror(errno)));
      return;
    }
    fn(sys_root);
    umount2(sys_root.c_str(), MNT_DETACH);
  });
  rmdir(sys_root.c_str());
  if (!ran.ok()) return ran;
  return setup;
}

// The id of every NAPI instance of `device`, asked of the netdev family from the current thread.
std::vector<uint32_t> NapiIds(const std::string& device) {
  std::vector<uint32_t> ids;
  absl::StatusOr<std::unique_ptr<netlink::NetdevTopology>> topology = netlink::OpenNetdevNetlink();
  if (!topology.ok()) return ids;
  absl::StatusOr<std::vector<netlink::NapiInfo>> napis =
      (*topology)->ListNapis(static_cast<int32_t>(if_nametoindex(device.c_str())));
  if (!napis.ok()) return ids;
  for (const netlink::NapiInfo& napi : *napis) ids.push_back(napi.id);
  return ids;
}

// The NAPI as napi-get reports it, independent of the knob under test.
std::optional<netlink::NapiInfo> NapiById(uint32_t id) {
  absl::StatusOr<std::unique_ptr<netlink::NetdevTopology>> topology = netlink::OpenNetdevNetlink();
  if (!topology.ok()) return std::nullopt;
  absl::StatusOr<std::vector<netlink::NapiInfo>> napis = (*topology)->ListNapis(std::nullopt);
  if (!napis.ok()) return std::nullopt;
  for (const netlink::NapiInfo& napi : *napis) {
    if (napi.id == id) return napi;
  }
  return std::nullopt;
}

// Runs `fn` with a provider over the sysfs of a namespace of its own, where the test's veth has GRO
// on, so it polls through one NAPI instance per rx queue (their ids, kRxQueues of them).
void WithGroVeth(const std::function<void(KernelKnobProvider& provider, const std::string& sys_root,
                                          const std::vector<uint32_t>& napi_ids)>& fn) {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns = VethNamespace();
  ASSERT_TRUE(netns.ok()) << netns.status();
  ASSERT_TRUE((*netns)->SetEthtoolFlag(kVeth, ETHTOOL_SGRO, true).ok());
  absl::Status ran = WithNamespaceSysfs(**netns, [&](const std::string& sys_root) {
    const std::vector<uint32_t> ids = NapiIds(kVeth);
    ASSERT_EQ(ids.size(), static_cast<size_t>(kRxQueues));
    KernelKnobProvider provider(KernelPaths{.proc_root = "/proc", .sys_root = sys_root});
    fn(provider, sys_root, ids);
  });
  ASSERT_TRUE(ran.ok()) << ran;
}

class KnobsKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }
};

TEST_F(KnobsKernelTest, SysfsKnobsOnATestVethAreSetVerifiedAndRestored) {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns = VethNamespace();
  ASSERT_TRUE(netns.ok()) << netns.status();
  ASSERT_FALSE(std::filesystem::exists(absl::StrCat("/sys/class/net/", kVeth)))
      << "the test device must not be on the host";
  absl::Status ran = WithNamespaceSysfs(**netns, [&](const std::string& sys_root) {
    KernelKnobProvider provider(KernelPaths{.proc_root = "/proc", .sys_root = sys_root});
    const std::string device_dir = absl::StrCat(sys_root, "/class/net/", kVeth);
    struct Case {
      Knob knob;
      const char* file;
      int64_t value;
    };
    for (const Case& c : {Case{Knob::kNapiDeferHardIrqs, "napi_defer_hard_irqs", 2},
                          Case{Knob::kGroFlushTimeout, "gro_flush_timeout", 200000}}) {
      SCOPED_TRACE(c.file);
      absl::StatusOr<std::unique_ptr<KnobAccess>> knob =
          provider.Open(KnobAddress{.knob = c.knob, .target = kVeth});
      ASSERT_TRUE(knob.ok()) << knob.status();
      absl::StatusOr<int64_t> original = (*knob)->Read();
      ASSERT_TRUE(original.ok()) << original.status();
      EXPECT_EQ(ReadText(absl::StrCat(device_dir, "/", c.file)), absl::StrCat(*original, "\n"));
      ASSERT_NE(*original, c.value) << "pick a value that differs from the default";
      EXPECT_TRUE((*knob)->Write(c.value).ok());
      // The kernel's own text, read apart from the knob.
      EXPECT_EQ(ReadText(absl::StrCat(device_dir, "/", c.file)), absl::StrCat(c.value, "\n"));
      absl::StatusOr<int64_t> now = (*knob)->Read();
      ASSERT_TRUE(now.ok()) << now.status();
      EXPECT_EQ(*now, c.value);
      ASSERT_TRUE((*knob)->Write(*original).ok());
      EXPECT_EQ(ReadText(absl::StrCat(device_dir, "/", c.file)), absl::StrCat(*original, "\n"));
    }
    // The host's NIC is not in this namespace's sysfs: the provider must not find it here.
    absl::StatusOr<std::unique_ptr<KnobAccess>> elsewhere =
        provider.Open(KnobAddress{.knob = Knob::kNapiDeferHardIrqs, .target = "eth0"});
    EXPECT_EQ(elsewhere.status().code(), absl::StatusCode::kNotFound) << elsewhere.status();
  });
  ASSERT_TRUE(ran.ok()) << ran;
}

TEST_F(KnobsKernelTest, CoalescingOnVethIsUnsupportedCleanly) {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns = VethNamespace();
  ASSERT_TRUE(netns.ok()) << netns.status();
  absl::Status write;
  absl::Status read;
  absl::Status ring;
  absl::Status coalesce_ioctl;
  absl::Status rings_ioctl;
  absl::Status ran = WithNamespaceSysfs(**netns, [&](const std::string& sys_root) {
    KernelKnobProvider provider(KernelPaths{.proc_root = "/proc", .sys_root = sys_root});
    absl::StatusOr<std::unique_ptr<KnobAccess>> knob =
        provider.Open(KnobAddress{.knob = Knob::kRxUsecs, .target = kVeth});
    if (!knob.ok()) {
      write = knob.status();
      return;
    }
    write = (*knob)->Write(8);
    read = (*knob)->Read().status();
    ring = WriteRxRing(kVeth, 256);
    // The ioctl fallback says the same (this kernel has the netlink family, so call it directly).
    netlink::CoalesceSettings usecs;
    usecs.rx_usecs = 8;
    coalesce_ioctl = netlink::SetCoalesceByIoctl(kVeth, usecs);
    netlink::RingSettings rx;
    rx.rx = 256;
    rings_ioctl = netlink::SetRingsByIoctl(kVeth, rx);
  });
  ASSERT_TRUE(ran.ok()) << ran;
  EXPECT_TRUE(IsUnsupported(write)) << write;
  EXPECT_THAT(std::string(write.message()), HasSubstr(absl::StrCat("rx_usecs on ", kVeth)));
  EXPECT_THAT(std::string(write.message()), HasSubstr("unsupported"));
  EXPECT_THAT(std::string(write.message()), HasSubstr("not supported by veth"));
  EXPECT_THAT(std::string(write.message()), HasSubstr("COALESCE_SET"));
  EXPECT_THAT(std::string(write.message()), HasSubstr("errno 95"));
  EXPECT_TRUE(IsUnsupported(read)) << read;
  EXPECT_THAT(std::string(read.message()), HasSubstr("COALESCE_GET"));
  // The rx ring: veth reports no ring parameters either (RINGS_GET fails before any SET).
  EXPECT_TRUE(IsUnsupported(ring)) << ring;
  EXPECT_THAT(std::string(ring.message()), HasSubstr(absl::StrCat("rx ring on ", kVeth)));
  EXPECT_TRUE(IsUnsupported(coalesce_ioctl)) << coalesce_ioctl;
  EXPECT_THAT(std::string(coalesce_ioctl.message()), HasSubstr("ethtool ioctl GCOALESCE"));
  EXPECT_TRUE(IsUnsupported(rings_ioctl)) << rings_ioctl;
  EXPECT_THAT(std::string(rings_ioctl.message()), HasSubstr("errno 95"));
}

// A TAP is a device of the test's own that takes coalescing: tun reports and sets rx-frames (its
// rx batch) and nothing else, so one knob is read and written through netlink and checked against
// the kernel's own report, and the ones the driver lacks say so. The host's NIC is never touched.
TEST_F(KnobsKernelTest, CoalescingOnATapIsReadWrittenAndRestoredThroughEthtoolNetlink) {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns = VethNamespace();
  ASSERT_TRUE(netns.ok()) << netns.status();
  constexpr char kTap[] = "nlkctap0";
  constexpr int64_t kBatch = 16;
  absl::Status ran = WithNamespaceSysfs(**netns, [&](const std::string& sys_root) {
    // The TAP lives as long as this descriptor (not persistent): closing it deletes the device.
    const int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    ASSERT_GE(tun, 0) << std::strerror(errno);
    ifreq request{};
    std::strncpy(request.ifr_name, kTap, IFNAMSIZ - 1);
    request.ifr_flags = IFF_TAP | IFF_NO_PI;
    if (ioctl(tun, TUNSETIFF, &request) != 0) {
      ADD_FAILURE() << "TUNSETIFF: " << std::strerror(errno);
      close(tun);
      return;
    }
    KernelKnobProvider provider(KernelPaths{.proc_root = "/proc", .sys_root = sys_root});
    absl::StatusOr<netlink::CoalesceSettings> before = netlink::ReadCoalesce(kTap);
    EXPECT_TRUE(before.ok()) << before.status();
    absl::StatusOr<std::unique_ptr<KnobAccess>> frames =
        provider.Open(KnobAddress{.knob = Knob::kRxFrames, .target = kTap});
    EXPECT_TRUE(frames.ok()) << frames.status();
    if (before.ok() && frames.ok()) {
      absl::StatusOr<int64_t> original = (*frames)->Read();
      EXPECT_TRUE(original.ok()) << original.status();
      EXPECT_EQ(original.value_or(-1), before->rx_max_frames.value_or(0));
      EXPECT_TRUE((*frames)->Write(kBatch).ok());
      absl::StatusOr<netlink::CoalesceSettings> written = netlink::ReadCoalesce(kTap);
      EXPECT_TRUE(written.ok()) << written.status();
      if (written.ok()) {
        EXPECT_EQ(written->rx_max_frames.value_or(0), kBatch);
      }
      EXPECT_EQ((*frames)->Read().value_or(-1), kBatch);
      EXPECT_TRUE((*frames)->Write(original.value_or(0)).ok());
      absl::StatusOr<netlink::CoalesceSettings> restored = netlink::ReadCoalesce(kTap);
      EXPECT_TRUE(restored.ok()) << restored.status();
      if (restored.ok()) {
        EXPECT_EQ(restored->rx_max_frames, before->rx_max_frames);
      }
    }
    // rx-usecs is not among tun's coalescing parameters: a write says so and changes nothing.
    absl::StatusOr<std::unique_ptr<KnobAccess>> usecs =
        provider.Open(KnobAddress{.knob = Knob::kRxUsecs, .target = kTap});
    if (usecs.ok()) {
      const absl::Status write = (*usecs)->Write(8);
      EXPECT_TRUE(IsUnsupported(write)) << write;
      EXPECT_THAT(std::string(write.message()), HasSubstr(absl::StrCat("rx_usecs on ", kTap)));
      EXPECT_THAT(std::string(write.message()), HasSubstr("unsupported parameter"));
      EXPECT_TRUE(IsUnsupported((*usecs)->Read().status()));
    } else {
      EXPECT_TRUE(IsUnsupported(usecs.status())) << usecs.status();
    }
    close(tun);
  });
  ASSERT_TRUE(ran.ok()) << ran;
}

TEST_F(KnobsKernelTest, NapiSetChangesOneInstanceAndSysfsChangesThemAll) {
  WithGroVeth([&](KernelKnobProvider& provider, const std::string&,
                  const std::vector<uint32_t>& ids) {
    const std::string one = absl::StrCat(kVeth, " napi ", ids[0]);
    absl::StatusOr<std::unique_ptr<KnobAccess>> defer =
        provider.Open(KnobAddress{.knob = Knob::kNapiDeferHardIrqs, .target = one});
    ASSERT_TRUE(defer.ok()) << defer.status();
    absl::StatusOr<std::unique_ptr<KnobAccess>> gro =
        provider.Open(KnobAddress{.knob = Knob::kGroFlushTimeout, .target = one});
    ASSERT_TRUE(gro.ok()) << gro.status();
    absl::StatusOr<int64_t> defer_original = (*defer)->Read();
    absl::StatusOr<int64_t> gro_original = (*gro)->Read();
    ASSERT_TRUE(defer_original.ok()) << defer_original.status();
    ASSERT_TRUE(gro_original.ok()) << gro_original.status();

    ASSERT_TRUE((*defer)->Write(3).ok());
    ASSERT_TRUE((*gro)->Write(50000).ok());
    std::optional<netlink::NapiInfo> changed = NapiById(ids[0]);
    std::optional<netlink::NapiInfo> untouched = NapiById(ids[1]);
    ASSERT_TRUE(changed && untouched);
    EXPECT_EQ(changed->defer_hard_irqs, 3u);
    EXPECT_EQ(changed->gro_flush_timeout_ns, 50000u);
    EXPECT_EQ(untouched->defer_hard_irqs, static_cast<uint32_t>(*defer_original));
    EXPECT_EQ(untouched->gro_flush_timeout_ns, static_cast<uint64_t>(*gro_original));

    // irq-suspend-timeout has no tuner Knob: its own functions, same napi-set.
    absl::StatusOr<uint64_t> suspend_original = ReadNapiIrqSuspendTimeout(ids[0]);
    ASSERT_TRUE(suspend_original.ok()) << suspend_original.status();
    ASSERT_TRUE(WriteNapiIrqSuspendTimeout(ids[0], 2'000'000).ok());
    std::optional<netlink::NapiInfo> suspended = NapiById(ids[0]);
    ASSERT_TRUE(suspended);
    EXPECT_EQ(suspended->irq_suspend_timeout_ns, 2'000'000u);
    EXPECT_TRUE(WriteNapiIrqSuspendTimeout(ids[0], *suspend_original).ok());

    // The device-wide sysfs file writes every instance's setting (6.13+ per-NAPI config).
    absl::StatusOr<std::unique_ptr<KnobAccess>> device_wide =
        provider.Open(KnobAddress{.knob = Knob::kNapiDeferHardIrqs, .target = kVeth});
    ASSERT_TRUE(device_wide.ok()) << device_wide.status();
    absl::StatusOr<int64_t> device_original = (*device_wide)->Read();
    ASSERT_TRUE(device_original.ok()) << device_original.status();
    ASSERT_TRUE((*device_wide)->Write(5).ok());
    for (const uint32_t id : ids) {
      std::optional<netlink::NapiInfo> napi = NapiById(id);
      ASSERT_TRUE(napi);
      EXPECT_EQ(napi->defer_hard_irqs, 5u) << "napi " << id;
    }

    // Restore: the device-wide value, then each instance, and check them all.
    EXPECT_TRUE((*device_wide)->Write(*device_original).ok());
    EXPECT_TRUE((*defer)->Write(*defer_original).ok());
    EXPECT_TRUE((*gro)->Write(*gro_original).ok());
    for (const uint32_t id : ids) {
      std::optional<netlink::NapiInfo> napi = NapiById(id);
      ASSERT_TRUE(napi);
      EXPECT_EQ(napi->defer_hard_irqs, static_cast<uint32_t>(*defer_original));
      EXPECT_EQ(napi->gro_flush_timeout_ns, static_cast<uint64_t>(*gro_original));
      EXPECT_EQ(napi->irq_suspend_timeout_ns, *suspend_original);
    }

    // An id that is not one of this device's NAPIs is refused, never written.
    absl::StatusOr<std::unique_ptr<KnobAccess>> stranger = provider.Open(
        KnobAddress{.knob = Knob::kNapiDeferHardIrqs, .target = absl::StrCat(kVeth, " napi 1")});
    ASSERT_TRUE(stranger.ok()) << stranger.status();
    EXPECT_EQ((*stranger)->Write(1).code(), absl::StatusCode::kNotFound);
  });
}

// sysfs threaded starts a polling thread for each NAPI instance of a device (napi-get reports its
// pid) and stops them again; a device without NAPI instances (the peer, GRO off) refuses it, and
// keeps polling in softirq.
TEST_F(KnobsKernelTest, ThreadedNapiStartsAThreadPerInstanceAndIsRefusedWithoutNapi) {
  WithGroVeth([&](KernelKnobProvider& provider, const std::string& sys_root,
                  const std::vector<uint32_t>& ids) {
    absl::StatusOr<std::unique_ptr<KnobAccess>> threaded =
        provider.Open(KnobAddress{.knob = Knob::kNapiThreaded, .target = kVeth});
    ASSERT_TRUE(threaded.ok()) << threaded.status();
    absl::StatusOr<int64_t> original = (*threaded)->Read();
    ASSERT_TRUE(original.ok()) << original.status();
    ASSERT_EQ(*original, 0) << "a new veth polls in softirq";
    for (const uint32_t id : ids) {
      std::optional<netlink::NapiInfo> napi = NapiById(id);
      ASSERT_TRUE(napi);
      EXPECT_FALSE(napi->pid.has_value()) << "napi " << id;
    }

    ASSERT_TRUE((*threaded)->Write(1).ok());
    const std::string file = absl::StrCat(sys_root, "/class/net/", kVeth, "/threaded");
    EXPECT_EQ(ReadText(file), "1\n");
    for (const uint32_t id : ids) {
      std::optional<netlink::NapiInfo> napi = NapiById(id);
      ASSERT_TRUE(napi);
      EXPECT_TRUE(napi->pid.has_value()) << "napi " << id << " has no polling thread";
    }
    ASSERT_TRUE((*threaded)->Write(*original).ok());
    EXPECT_EQ(ReadText(file), "0\n");
    for (const uint32_t id : ids) {
      std::optional<netlink::NapiInfo> napi = NapiById(id);
      ASSERT_TRUE(napi);
      EXPECT_FALSE(napi->pid.has_value()) << "napi " << id << " still polls in a thread";
    }

    absl::StatusOr<std::unique_ptr<KnobAccess>> peer =
        provider.Open(KnobAddress{.knob = Knob::kNapiThreaded, .target = kPeer});
    ASSERT_TRUE(peer.ok()) << peer.status();
    const absl::Status refused = (*peer)->Write(1);
    EXPECT_FALSE(refused.ok());
    EXPECT_THAT(std::string(refused.message()), HasSubstr("threaded"));
    EXPECT_EQ(ReadText(absl::StrCat(sys_root, "/class/net/", kPeer, "/threaded")), "0\n");
  });
}

TEST_F(KnobsKernelTest, ATapWithNapiTakesTheSysfsKnobsButHasNoAddressableInstance) {
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns = VethNamespace();
  ASSERT_TRUE(netns.ok()) << netns.status();
  constexpr char kTap[] = "nlktap0";
  absl::Status ran = WithNamespaceSysfs(**netns, [&](const std::string& sys_root) {
    // The TAP lives as long as this descriptor (not persistent): closing it deletes the device.
    const int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    ASSERT_GE(tun, 0) << std::strerror(errno);
    ifreq request{};
    std::strncpy(request.ifr_name, kTap, IFNAMSIZ - 1);
    request.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NAPI;
    if (ioctl(tun, TUNSETIFF, &request) != 0) {
      ADD_FAILURE() << "TUNSETIFF IFF_NAPI: " << std::strerror(errno);
      close(tun);
      return;
    }
    // tun registers its NAPI with netif_napi_add_tx(), which gives it no NAPI id: napi-get does
    // not list it, so napi-set cannot address it (6.18). Device-wide sysfs is the way here.
    EXPECT_TRUE(NapiIds(kTap).empty());
    KernelKnobProvider provider(KernelPaths{.proc_root = "/proc", .sys_root = sys_root});
    const std::string file = absl::StrCat(sys_root, "/class/net/", kTap, "/napi_defer_hard_irqs");
    absl::StatusOr<std::unique_ptr<KnobAccess>> defer =
        provider.Open(KnobAddress{.knob = Knob::kNapiDeferHardIrqs, .target = kTap});
    EXPECT_TRUE(defer.ok()) << defer.status();
    if (defer.ok()) {
      absl::StatusOr<int64_t> original = (*defer)->Read();
      EXPECT_TRUE(original.ok()) << original.status();
      if (original.ok()) {
        EXPECT_TRUE((*defer)->Write(*original + 4).ok());
        EXPECT_EQ(ReadText(file), absl::StrCat(*original + 4, "\n"));
        EXPECT_TRUE((*defer)->Write(*original).ok());
        EXPECT_EQ(ReadText(file), absl::StrCat(*original, "\n"));
      }
    }
    close(tun);
  });
  ASSERT_TRUE(ran.ok()) << ran;
}

TEST_F(KnobsKernelTest, AHostSysctlIsWrittenAndRestoredByteForByte) {
  const std::string path = "/proc/sys/net/core/netdev_budget";
  std::string original;
  {
    // Puts the original back when the block ends, also after a failed ASSERT.
    auto guard = testing_support::SysctlRestorer::Capture({path});
    ASSERT_TRUE(guard.ok()) << guard.status();
    original = ReadText(path);
    KernelKnobProvider provider(KernelPaths{});
    absl::StatusOr<std::unique_ptr<KnobAccess>> budget =
        provider.Open(KnobAddress{.knob = Knob::kNetdevBudget, .target = "host"});
    ASSERT_TRUE(budget.ok()) << budget.status();
    absl::StatusOr<int64_t> value = (*budget)->Read();
    ASSERT_TRUE(value.ok()) << value.status();
    ASSERT_EQ(absl::StrCat(*value, "\n"), original);
    // One more packet per softirq run for a moment: harmless to anything else on the host.
    ASSERT_TRUE((*budget)->Write(*value + 1).ok());
    EXPECT_EQ(ReadText(path), absl::StrCat(*value + 1, "\n"));
    // Out of range is refused before the kernel sees it.
    EXPECT_EQ((*budget)->Write(0).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ReadText(path), absl::StrCat(*value + 1, "\n"));
    // The provider's own write of the original restores it byte for byte (the guard only backs
    // this up when an ASSERT above ended the block early).
    ASSERT_TRUE((*budget)->Write(*value).ok());
    EXPECT_EQ(ReadText(path), original);
  }
}

}  // namespace
}  // namespace nictune::driver::knobs
