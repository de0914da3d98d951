// SPDX-License-Identifier: Apache-2.0
// Test hosts: network namespaces joined by a veth pair (and optionally a TAP device), with private
// addresses inside the namespaces only. Everything is deleted by the destructors, also when a test
// fails half way. Nothing here touches the host's own devices or addresses.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::testing_support {

// Counters of one device as /proc/net/dev shows them inside its namespace.
struct DeviceCounters {
  uint64_t rx_bytes = 0;
  uint64_t rx_packets = 0;
  uint64_t rx_dropped = 0;
  uint64_t tx_bytes = 0;
  uint64_t tx_packets = 0;
  uint64_t tx_dropped = 0;
};

// Runs `fn` on a fresh thread that has joined /run/netns/<name> (setns(CLONE_NEWNET) affects only
// that thread) and returns when it has finished; for a namespace this process does not own too
// (the emulated NIC's). Sockets created by `fn` stay in that namespace.
absl::Status RunInNamedNamespace(const std::string& name, const std::function<void()>& fn);

// Reads /proc/net/<file> as the namespace /run/netns/<name> sees it ("snmp", "dev", "netstat").
absl::StatusOr<std::string> ReadProcNetIn(const std::string& name, const std::string& file);

// The contents of files as the namespace /run/netns/<name> sees them with a sysfs of its own (as
// `ip netns exec` mounts it): one line "PATH:VALUE" per line of each file, so that a difference
// between two readings names the file. An empty name reads them in the test's own namespace.
// Fails naming the files unless every one was read.
absl::StatusOr<std::string> ReadFilesIn(const std::string& name,
                                        const std::vector<std::string>& files);

// One named network namespace (`ip netns add`), deleted with `ip netns del` on destruction.
class NetworkNamespace {
 public:
  static absl::StatusOr<std::unique_ptr<NetworkNamespace>> Create(const std::string& name);
  NetworkNamespace(const NetworkNamespace&) = delete;
  NetworkNamespace& operator=(const NetworkNamespace&) = delete;
  ~NetworkNamespace();

  const std::string& name() const { return name_; }

  // RunInNamedNamespace and ReadProcNetIn for this namespace.
  absl::Status RunInside(const std::function<void()>& fn) const {
    return RunInNamedNamespace(name_, fn);
  }
  absl::StatusOr<std::string> ReadProcNet(const std::string& file) const {
    return ReadProcNetIn(name_, file);
  }

  // `ip -n <name> <args...>`, failing with ip's stderr unless it exits 0.
  absl::Status Ip(const std::vector<std::string>& args) const;

  absl::StatusOr<DeviceCounters> ReadDeviceCounters(const std::string& device) const;

  // Sets a device's ethtool feature flag through the legacy SIOCETHTOOL ioctl (the ethtool
  // binary is not installed everywhere). `ethtool_command` is e.g. ETHTOOL_SGRO or ETHTOOL_STSO.
  absl::Status SetEthtoolFlag(const std::string& device, uint32_t ethtool_command,
                              bool enabled) const;

 private:
  explicit NetworkNamespace(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

struct VethHostsOptions {
  // Deliver through the receiving veth's NAPI instance so that napi:napi_poll fires for it. On
  // 6.x veth uses NAPI only when GRO is on for the receiver (or XDP is attached), and only for
  // skbs that are eligible for GRO: the sender must have TSO off (or the receiver must have
  // rx-udp-gro-forwarding); see veth_skb_is_eligible_for_gro() in drivers/net/veth.c.
  bool napi_on_b = true;
  // Poll b's NAPI in its own kernel thread (/sys/class/net/DEV/threaded) instead of the sender's
  // softirq: the sender then fills the ring while the thread polls, so polls carry many packets
  // (up to the weight, 64) instead of one each.
  bool threaded_napi_on_b = false;
  // With threaded_napi_on_b: the CPU its threads run on (-1: wherever the scheduler puts them).
  // A thread that the scheduler moves between the sender's CPU and another polls in bursts whose
  // sizes change from second to second; pinned apart from the sender, the polls keep one shape.
  int napi_thread_cpu = -1;
  bool tap_in_b = false;  // also create a TAP device (down, no queue attached) in host b
};

// Two hosts "a" and "b" in their own namespaces, joined by a veth pair with a /30 between them.
class VethHosts {
 public:
  static absl::StatusOr<std::unique_ptr<VethHosts>> Create(const VethHostsOptions& options);
  VethHosts(const VethHosts&) = delete;
  VethHosts& operator=(const VethHosts&) = delete;
  ~VethHosts() = default;

  const NetworkNamespace& a() const { return *a_; }
  const NetworkNamespace& b() const { return *b_; }
  const std::string& device_a() const { return device_a_; }  // the veth end in a
  const std::string& device_b() const { return device_b_; }  // the veth end in b
  const std::string& address_a() const { return address_a_; }
  const std::string& address_b() const { return address_b_; }
  const std::string& tap_b() const { return tap_b_; }  // empty unless tap_in_b

 private:
  VethHosts() = default;

  // Deleting a namespace deletes the devices inside it, so the namespaces are all we own.
  std::unique_ptr<NetworkNamespace> a_;
  std::unique_ptr<NetworkNamespace> b_;
  std::string device_a_;
  std::string device_b_;
  std::string address_a_;
  std::string address_b_;
  std::string tap_b_;
};

}  // namespace nictune::testing_support
