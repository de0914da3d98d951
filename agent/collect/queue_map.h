// SPDX-License-Identifier: Apache-2.0
// Which interrupt, CPUs and NAPI instance serve each queue of each network device.
//
// Sources, best first: the kernel's own map over netdev netlink (queue-get + napi-get, 6.8+);
// else the action names in /proc/interrupts, using the naming patterns of real drivers and
// device/msi_irqs as the tie between an irq and a device. CPUs come from /proc/irq/N/
// effective_affinity_list where the kernel has it (where the irq really fires), else
// smp_affinity_list (where it may fire).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/procfs/interrupts.h"
#include "driver/netlink/netdev_topology.h"

namespace nictune::collect {

enum class QueueKind { kRx, kTx, kCombined };
std::string_view QueueKindName(QueueKind kind);  // "rx", "tx", "combined"

// QueueBinding::source values: where the queue <-> irq link came from.
inline constexpr char kSourceNetdevNetlink[] = "netdev-netlink";
// The irq's name carries the device ("eth0-TxRx-3") or its bus id ("virtio2-input.0",
// "mlx5_comp3@pci:0000:3b:00.0").
inline constexpr char kSourceIrqName[] = "procfs-irq-name";
// The name has a queue pattern but not the device (renamed after it requested its irqs, or an
// old mlx5 "mlx5_comp3"): the irq is tied to the device only by its device/msi_irqs.
inline constexpr char kSourceMsiIrqs[] = "msi_irqs";
// No irq and no napi id (a TAP's queues): the device's own per-queue counters name the queue, its
// interrupt count and the thread that polls it.
inline constexpr char kSourceNicCounters[] = "nic-counters";

struct QueueBinding {
  std::string device;
  int32_t ifindex = 0;
  int queue = 0;  // index within kind
  QueueKind kind = QueueKind::kCombined;
  std::optional<uint32_t> irq;
  std::vector<int> cpus;  // where irq is delivered; empty without an irq
  std::optional<uint32_t> napi_id;
  // The pid of the kernel thread that polls it (threaded NAPI): netdev netlink's, or, without a
  // napi id, the device's own counters'.
  std::optional<uint32_t> napi_thread;
  std::string source;                   // one of the kSource* values
};

// A device as the map needs it.
struct QueueMapDevice {
  std::string name;
  int32_t ifindex = 0;
  std::string bus_id;         // basename of /sys/class/net/DEV/device: "virtio2", "0000:3b:00.0"
  std::string pci_address;    // the PCI function whose MSI vectors the device uses, or empty
  std::vector<int> msi_irqs;  // that function's msi_irqs (for virtio: the parent PCI device's)
};

struct IrqAffinity {
  std::vector<int> smp_affinity;                       // smp_affinity_list
  std::optional<std::vector<int>> effective_affinity;  // effective_affinity_list, when present
};

struct QueueMapInputs {
  std::vector<QueueMapDevice> devices;
  procfs::InterruptTable interrupts;
  std::map<uint32_t, IrqAffinity> affinity;
  // Absent when netdev netlink could not be used.
  std::optional<std::vector<driver::netlink::NapiInfo>> napis;
  std::optional<std::vector<driver::netlink::NetdevQueue>> queues;
};

// Pure: bindings sorted by device, queue, kind (rx, tx, combined). For a device that netdev
// netlink describes (any of its queues has a NAPI), netlink decides the queues, their NAPIs and,
// where the driver linked them, the irqs; irq names fill irqs and queues netlink leaves without
// (virtio_net on 6.18 links no irq to its NAPIs). Other devices are mapped from irq names.
// Queues with neither an irq nor a NAPI are left out: nothing there to measure or tune.
std::vector<QueueBinding> BuildQueueMap(const QueueMapInputs& inputs);

// A NAPI instance that netdev netlink lists with a threaded poller, whatever queue it serves: a
// driver that does not link its queues to its instances (veth on 6.18) still names their pollers.
struct NapiThread {
  std::string device;
  uint32_t napi_id = 0;
  uint32_t pid = 0;
};

// Pure: the instances of `inputs.napis` with a poller, on the devices `inputs.devices` names,
// sorted by pid.
std::vector<NapiThread> NapiThreadsOf(const QueueMapInputs& inputs);

struct QueueMap {
  std::vector<QueueBinding> bindings;
  std::vector<NapiThread> napi_threads;
  // The host's other threaded NAPI pollers (procfs/napi_threads.h), sorted: kernel threads named
  // napi/... that this namespace's netdev netlink does not name, so another namespace's; at most
  // 256, and a note says how many were left out. Empty where netlink could not be used (it names
  // no poller then, and nothing tells them apart).
  std::vector<uint32_t> other_napi_threads;
  std::vector<std::string> notes;  // sources that could not be used and why, for `status`
};

// Reads <proc>/interrupts, <proc>/irq/N/*affinity_list, <sys>/class/net and, when netlink is not
// null, its napi and queue dumps (netlink must look at the same network namespace as <sys>) and
// the kernel threads of <proc>.
// Only an unreadable /proc/interrupts or /sys/class/net fails; the rest becomes notes.
absl::StatusOr<QueueMap> ReadQueueMap(const CollectorPaths& paths,
                                      driver::netlink::NetdevTopology* netlink);

}  // namespace nictune::collect
