// SPDX-License-Identifier: Apache-2.0
#include "agent/collect/queue_map.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/procfs/cpu_list.h"
#include "agent/procfs/napi_threads.h"
#include "agent/procfs/net_devices.h"
#include "agent/procfs/read_file.h"
#include "driver/kernel_name.h"

namespace nictune::collect {
namespace {

namespace fs = std::filesystem;
using driver::netlink::NapiInfo;
using driver::netlink::NetdevQueue;
using driver::netlink::NetdevQueueType;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses a whole decimal queue/block number (no sign, at most 6 digits: no real index is larger).
std::optional<int> SmallNumber(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// ---- Names that carry the device: "[<driver>-]<dev><infix><n>" ----

struct DeviceNamePattern {
  std::string_view infix;
  QueueKind kind;
};

// Most specific first: "eth0-TxRx-3" also ends in "-3".
constexpr DeviceNamePattern kDeviceNamePatterns[] = {
    {"-TxRx-", QueueKind::kCombined},   // ixgbe, igb, bnxt; i40e/ice as "i40e-eth0-TxRx-3"
    {"-Tx-Rx-", QueueKind::kCombined},  // ena: "ens5-Tx-Rx-0"
    {"-rxtx-", QueueKind::kCombined},   // vmxnet3: "eth0-rxtx-0"
    {"-fp-", QueueKind::kCombined},     // bnx2x fast paths: "eth0-fp-0"
    {"-rx-", QueueKind::kRx},           // e1000e, igb with split vectors: "eth0-rx-0"
    {"-tx-", QueueKind::kTx},           // "eth0-tx-0"
    {"-", QueueKind::kCombined},        // one vector per channel: "enp1s0-0"
};

struct DeviceNamedQueue {
  std::string_view head;  // what precedes the infix: the device, maybe after "<driver>-"
  QueueKind kind;
  int index;
};

std::vector<DeviceNamedQueue> DeviceNamedCandidates(std::string_view action) {
  std::vector<DeviceNamedQueue> out;
  size_t digits = action.size();
  while (digits > 0 && IsDigit(action[digits - 1])) --digits;
  const std::optional<int> index = SmallNumber(action.substr(digits));
  if (!index) return out;
  const std::string_view rest = action.substr(0, digits);
  for (const DeviceNamePattern& pattern : kDeviceNamePatterns) {
    if (!EndsWith(rest, pattern.infix) || rest.size() == pattern.infix.size()) continue;
    out.push_back({rest.substr(0, rest.size() - pattern.infix.size()), pattern.kind, *index});
  }
  return out;
}

bool HeadNamesDevice(std::string_view head, std::string_view device) {
  return head == device || (EndsWith(head, device) && head.size() > device.size() &&
                            head[head.size() - device.size() - 1] == '-');
}

// ---- Names that carry a bus id instead of the device ----

enum class Tie { kBusId, kPciAddress, kMsiOnly };

struct BusNamedQueue {
  Tie tie = Tie::kMsiOnly;
  std::string tie_value;  // "virtio2" or "0000:3b:00.0"
  QueueKind kind = QueueKind::kCombined;
  int index = 0;
  bool gve_block = false;  // gve numbers notify blocks, not queues: resolved per device later
};

// "<prefix><n>[@pci:<address>]" as mlx5 and gve name their vectors.
std::optional<BusNamedQueue> PciSuffixed(std::string_view action, std::string_view prefix) {
  if (!StartsWith(action, prefix)) return std::nullopt;
  std::string_view rest = action.substr(prefix.size());
  const size_t at = rest.find("@pci:");
  BusNamedQueue out;
  if (at != std::string_view::npos) {
    out.tie = Tie::kPciAddress;
    out.tie_value = std::string(rest.substr(at + 5));
    rest = rest.substr(0, at);
  }
  const std::optional<int> index = SmallNumber(rest);
  if (!index) return std::nullopt;
  out.index = *index;
  return out;
}

// virtio_net: "virtio2-input.0" (rx 0), "virtio2-output.0" (tx 0), tied by the virtio bus id.
std::optional<BusNamedQueue> VirtioNet(std::string_view action) {
  if (!StartsWith(action, "virtio")) return std::nullopt;
  const size_t dash = action.find('-');
  if (dash == std::string_view::npos || !SmallNumber(action.substr(6, dash - 6))) {
    return std::nullopt;
  }
  const std::string_view rest = action.substr(dash + 1);
  BusNamedQueue out;
  out.tie = Tie::kBusId;
  out.tie_value = std::string(action.substr(0, dash));
  std::string_view number;
  if (StartsWith(rest, "input.")) {
    out.kind = QueueKind::kRx;
    number = rest.substr(6);
  } else if (StartsWith(rest, "output.")) {
    out.kind = QueueKind::kTx;
    number = rest.substr(7);
  } else {
    return std::nullopt;  // config, control and other virtqueues
  }
  const std::optional<int> index = SmallNumber(number);
  if (!index) return std::nullopt;
  out.index = *index;
  return out;
}

std::optional<BusNamedQueue> Mlx5Completion(std::string_view action) {
  return PciSuffixed(action, "mlx5_comp");  // one completion vector per channel
}

std::optional<BusNamedQueue> GveNotifyBlock(std::string_view action) {
  std::optional<BusNamedQueue> out = PciSuffixed(action, "gve-ntfy-blk");
  if (out) out->gve_block = true;
  return out;
}

using BusPattern = std::optional<BusNamedQueue> (*)(std::string_view);
constexpr BusPattern kBusPatterns[] = {VirtioNet, Mlx5Completion, GveNotifyBlock};

// ---- Building ----

struct Found {
  QueueBinding binding;
  bool gve_block = false;
};

std::vector<std::string_view> SplitActions(std::string_view actions) {
  std::vector<std::string_view> out;
  while (!actions.empty()) {
    const size_t comma = actions.find(',');
    std::string_view one = actions.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
    if (!one.empty()) out.push_back(one);
    if (comma == std::string_view::npos) break;
    actions.remove_prefix(comma + 1);
  }
  return out;
}

// The one device whose msi_irqs hold irq, or null (none, or ambiguous).
const QueueMapDevice* DeviceOwningIrq(const std::vector<QueueMapDevice>& devices, uint32_t irq) {
  const QueueMapDevice* owner = nullptr;
  for (const QueueMapDevice& device : devices) {
    if (std::find(device.msi_irqs.begin(), device.msi_irqs.end(), static_cast<int>(irq)) ==
        device.msi_irqs.end()) {
      continue;
    }
    if (owner != nullptr && owner->pci_address != device.pci_address) return nullptr;
    owner = owner == nullptr ? &device : owner;
  }
  return owner;
}

QueueBinding Bind(const QueueMapDevice& device, QueueKind kind, int index, uint32_t irq,
                  const char* source) {
  QueueBinding binding;
  binding.device = device.name;
  binding.ifindex = device.ifindex;
  binding.queue = index;
  binding.kind = kind;
  binding.irq = irq;
  binding.source = source;
  return binding;
}

std::optional<Found> MatchAction(const std::vector<QueueMapDevice>& devices,
                                 std::string_view action, uint32_t irq) {
  for (BusPattern pattern : kBusPatterns) {
    std::optional<BusNamedQueue> queue = pattern(action);
    if (!queue) continue;
    for (const QueueMapDevice& device : devices) {
      const bool tied = (queue->tie == Tie::kBusId && device.bus_id == queue->tie_value) ||
                        (queue->tie == Tie::kPciAddress && !device.pci_address.empty() &&
                         device.pci_address == queue->tie_value);
      if (tied) {
        return Found{Bind(device, queue->kind, queue->index, irq, kSourceIrqName),
                     queue->gve_block};
      }
    }
    if (const QueueMapDevice* owner = DeviceOwningIrq(devices, irq)) {
      return Found{Bind(*owner, queue->kind, queue->index, irq, kSourceMsiIrqs), queue->gve_block};
    }
    return std::nullopt;
  }

  const std::vector<DeviceNamedQueue> candidates = DeviceNamedCandidates(action);
  for (const DeviceNamedQueue& candidate : candidates) {
    const QueueMapDevice* named = nullptr;
    for (const QueueMapDevice& device : devices) {
      if (candidate.head == device.name) {
        named = &device;
        break;
      }
      if (named == nullptr && HeadNamesDevice(candidate.head, device.name)) named = &device;
    }
    if (named != nullptr) {
      return Found{Bind(*named, candidate.kind, candidate.index, irq, kSourceIrqName), false};
    }
  }
  // A queue-shaped name of no current device: the device was renamed after requesting its irqs
  // (eth0 -> enp3s0f0 by udev). Only msi_irqs can say whose vector it is.
  if (!candidates.empty()) {
    if (const QueueMapDevice* owner = DeviceOwningIrq(devices, irq)) {
      return Found{
          Bind(*owner, candidates.front().kind, candidates.front().index, irq, kSourceMsiIrqs),
          false};
    }
  }
  return std::nullopt;
}

// gve: the first half of a device's notify blocks serve tx queues, the second half rx queues
// (gve_tx_idx_to_ntfy / gve_rx_idx_to_ntfy in the driver).
void ResolveGveBlocks(std::vector<Found>& found) {
  std::map<std::string, int> blocks_per_device;
  for (const Found& f : found) {
    if (f.gve_block) ++blocks_per_device[f.binding.device];
  }
  for (Found& f : found) {
    if (!f.gve_block) continue;
    const int half = blocks_per_device[f.binding.device] / 2;
    if (f.binding.queue < half) {
      f.binding.kind = QueueKind::kTx;
    } else {
      f.binding.kind = QueueKind::kRx;
      f.binding.queue -= half;
    }
  }
}

std::vector<QueueBinding> FromIrqNames(const QueueMapInputs& inputs) {
  std::vector<Found> found;
  for (const procfs::InterruptLine& line : inputs.interrupts.lines) {
    if (!line.irq) continue;
    for (std::string_view action : SplitActions(line.actions)) {
      if (std::optional<Found> match = MatchAction(inputs.devices, action, *line.irq)) {
        found.push_back(*std::move(match));
      }
    }
  }
  ResolveGveBlocks(found);
  std::vector<QueueBinding> out;
  std::set<std::tuple<std::string, QueueKind, int>> seen;
  for (Found& f : found) {
    if (seen.insert({f.binding.device, f.binding.kind, f.binding.queue}).second) {
      out.push_back(std::move(f.binding));
    }
  }
  return out;
}

// The irq the names give for a queue netlink describes without one.
const QueueBinding* NamedIrqFor(const std::vector<QueueBinding>& named, const std::string& device,
                                QueueKind kind, int queue) {
  const QueueBinding* fallback = nullptr;
  for (const QueueBinding& binding : named) {
    if (binding.device != device || binding.queue != queue) continue;
    if (binding.kind == kind) return &binding;
    if (binding.kind == QueueKind::kCombined || kind == QueueKind::kCombined) fallback = &binding;
  }
  return fallback;
}

std::vector<QueueBinding> FromNetlink(const QueueMapInputs& inputs,
                                      const std::vector<QueueBinding>& named,
                                      std::set<int32_t>& described) {
  std::vector<QueueBinding> out;
  if (!inputs.napis || !inputs.queues) return out;
  std::map<uint32_t, const NapiInfo*> napis;
  for (const NapiInfo& napi : *inputs.napis) napis[napi.id] = &napi;

  for (const QueueMapDevice& device : inputs.devices) {
    std::map<int, uint32_t> rx;
    std::map<int, uint32_t> tx;
    for (const NetdevQueue& queue : *inputs.queues) {
      if (queue.ifindex != device.ifindex || !queue.napi_id) continue;
      const int index = static_cast<int>(queue.id);
      if (queue.type == NetdevQueueType::kRx) rx[index] = *queue.napi_id;
      if (queue.type == NetdevQueueType::kTx) tx[index] = *queue.napi_id;
    }
    if (rx.empty() && tx.empty()) continue;
    described.insert(device.ifindex);

    auto add = [&](QueueKind kind, int index, uint32_t napi_id) {
      QueueBinding binding;
      binding.device = device.name;
      binding.ifindex = device.ifindex;
      binding.queue = index;
      binding.kind = kind;
      binding.napi_id = napi_id;
      binding.source = kSourceNetdevNetlink;
      if (auto napi = napis.find(napi_id); napi != napis.end() && napi->second->pid) {
        binding.napi_thread = napi->second->pid;
      }
      if (auto napi = napis.find(napi_id); napi != napis.end() && napi->second->irq) {
        binding.irq = napi->second->irq;
      } else if (const QueueBinding* by_name = NamedIrqFor(named, device.name, kind, index)) {
        // The driver links queues to NAPIs but not NAPIs to irqs: the name fills the gap, and
        // the source says so.
        binding.irq = by_name->irq;
        binding.source = by_name->source;
      }
      out.push_back(std::move(binding));
    };
    // An rx and a tx queue of the same index polled by one NAPI are one channel.
    for (const auto& [index, napi_id] : rx) {
      auto paired = tx.find(index);
      if (paired != tx.end() && paired->second == napi_id) {
        add(QueueKind::kCombined, index, napi_id);
        tx.erase(paired);
      } else {
        add(QueueKind::kRx, index, napi_id);
      }
    }
    for (const auto& [index, napi_id] : tx) add(QueueKind::kTx, index, napi_id);

    // Queues netlink lists without a NAPI (virtio_net's tx queues when tx NAPI is off) still
    // have the irq their name gives.
    const size_t from_netlink = out.size();
    for (const QueueBinding& by_name : named) {
      if (by_name.ifindex != device.ifindex) continue;
      const bool covered =
          std::any_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(from_netlink),
                      [&](const QueueBinding& b) {
                        return b.ifindex == device.ifindex && b.queue == by_name.queue &&
                               (b.kind == by_name.kind || b.kind == QueueKind::kCombined ||
                                by_name.kind == QueueKind::kCombined);
                      });
      if (!covered) out.push_back(by_name);
    }
  }
  return out;
}

}  // namespace

std::string_view QueueKindName(QueueKind kind) {
  switch (kind) {
    case QueueKind::kRx:
      return "rx";
    case QueueKind::kTx:
      return "tx";
    case QueueKind::kCombined:
      return "combined";
  }
  return "combined";
}

std::vector<QueueBinding> BuildQueueMap(const QueueMapInputs& inputs) {
  const std::vector<QueueBinding> named = FromIrqNames(inputs);
  std::set<int32_t> described_by_netlink;
  std::vector<QueueBinding> out = FromNetlink(inputs, named, described_by_netlink);
  for (const QueueBinding& binding : named) {
    if (described_by_netlink.count(binding.ifindex) == 0) out.push_back(binding);
  }
  for (QueueBinding& binding : out) {
    if (!binding.irq) continue;
    auto affinity = inputs.affinity.find(*binding.irq);
    if (affinity == inputs.affinity.end()) continue;
    const IrqAffinity& a = affinity->second;
    binding.cpus = a.effective_affinity && !a.effective_affinity->empty() ? *a.effective_affinity
                                                                          : a.smp_affinity;
  }
  std::sort(out.begin(), out.end(), [](const QueueBinding& x, const QueueBinding& y) {
    return std::tie(x.device, x.queue, x.kind) < std::tie(y.device, y.queue, y.kind);
  });
  return out;
}

// ---- Reading ----

namespace {

bool IsPciAddress(std::string_view name) {
  // "0000:3b:00.0": domain:bus:device.function in hex.
  if (name.size() != 12 || name[4] != ':' || name[7] != ':' || name[10] != '.') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (i == 4 || i == 7 || i == 10) continue;
    if (std::isxdigit(static_cast<unsigned char>(name[i])) == 0) return false;
  }
  return true;
}

std::vector<int> ListMsiIrqs(const fs::path& directory) {
  std::vector<int> irqs;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    if (std::optional<int> irq = SmallNumber(it->path().filename().native())) {
      irqs.push_back(*irq);
    }
  }
  std::sort(irqs.begin(), irqs.end());
  return irqs;
}

QueueMapDevice DescribeDevice(const fs::path& class_net, const procfs::NetDevice& device) {
  QueueMapDevice out;
  out.name = device.name;
  out.ifindex = device.ifindex;
  out.msi_irqs = device.msi_irqs;
  std::error_code error;
  const fs::path bus_device =
      fs::canonical(class_net / driver::KernelNameBytes(device.name) / "device", error);
  if (error) return out;  // virtual devices have no bus device
  out.bus_id = driver::KernelNameText(bus_device.filename().native());
  if (IsPciAddress(out.bus_id)) {
    out.pci_address = out.bus_id;
  } else if (IsPciAddress(bus_device.parent_path().filename().native())) {
    // virtio devices sit under their virtio-pci function, which owns the MSI-X vectors.
    out.pci_address = bus_device.parent_path().filename().native();
    if (out.msi_irqs.empty()) out.msi_irqs = ListMsiIrqs(bus_device.parent_path() / "msi_irqs");
  }
  return out;
}

std::optional<std::vector<int>> ReadCpuListFile(const std::string& path, std::string* problem) {
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  if (!text.ok()) {
    if (!absl::IsNotFound(text.status()) && problem->empty()) {
      *problem = std::string(text.status().message());
    }
    return std::nullopt;
  }
  // An irq that has not fired yet may have an empty effective_affinity_list: no answer there.
  if (text->find_first_not_of(" \t\n") == std::string::npos) return std::nullopt;
  absl::StatusOr<std::vector<int>> cpus = procfs::ParseCpuList(*text, path);
  if (!cpus.ok()) {
    if (problem->empty()) *problem = std::string(cpus.status().message());
    return std::nullopt;
  }
  return *std::move(cpus);
}

}  // namespace

namespace {

// Each watched poller is one /proc/PID/schedstat read per interval: a host of a thousand
// containers with threaded veths would read a thousand files each time for one series.
constexpr size_t kMaxOtherNapiThreads = 256;

// The host's napi/... kernel threads but those of this namespace's instances, the first
// kMaxOtherNapiThreads by pid; a note says how many more there were.
void AddOtherNapiThreads(const std::string& proc_root, const std::vector<NapiInfo>& napis,
                         QueueMap& map) {
  absl::StatusOr<std::vector<uint32_t>> threads = procfs::ReadNapiThreadPids(proc_root);
  if (!threads.ok()) {
    map.notes.push_back(
        absl::StrCat("other namespaces' NAPI pollers: ", threads.status().message()));
    return;
  }
  std::set<uint32_t> ours;
  for (const NapiInfo& napi : napis) {
    if (napi.pid) ours.insert(*napi.pid);
  }
  for (const uint32_t pid : *threads) {
    if (!ours.contains(pid)) map.other_napi_threads.push_back(pid);
  }
  if (map.other_napi_threads.size() > kMaxOtherNapiThreads) {
    map.notes.push_back(
        absl::StrCat("other namespaces' NAPI pollers: ", map.other_napi_threads.size(),
                     " found, the first ", kMaxOtherNapiThreads, " by pid watched"));
    map.other_napi_threads.resize(kMaxOtherNapiThreads);
  }
}

}  // namespace

std::vector<NapiThread> NapiThreadsOf(const QueueMapInputs& inputs) {
  std::vector<NapiThread> threads;
  if (!inputs.napis) return threads;
  for (const NapiInfo& napi : *inputs.napis) {
    if (!napi.pid || *napi.pid == 0) continue;
    const auto device =
        std::find_if(inputs.devices.begin(), inputs.devices.end(),
                     [&](const QueueMapDevice& d) { return d.ifindex == napi.ifindex; });
    if (device == inputs.devices.end()) continue;
    threads.push_back({.device = device->name, .napi_id = napi.id, .pid = *napi.pid});
  }
  std::sort(threads.begin(), threads.end(),
            [](const NapiThread& a, const NapiThread& b) { return a.pid < b.pid; });
  return threads;
}

absl::StatusOr<QueueMap> ReadQueueMap(const CollectorPaths& paths,
                                      driver::netlink::NetdevTopology* netlink) {
  QueueMap map;
  QueueMapInputs inputs;
  const std::string interrupts_path = paths.proc + "/interrupts";
  absl::StatusOr<std::string> interrupts_text = procfs::ReadFile(interrupts_path);
  if (!interrupts_text.ok()) return interrupts_text.status();
  absl::StatusOr<procfs::InterruptTable> interrupts =
      procfs::ParseInterrupts(*interrupts_text, interrupts_path);
  if (!interrupts.ok()) return interrupts.status();
  inputs.interrupts = *std::move(interrupts);

  const fs::path class_net = fs::path(paths.sys) / "class" / "net";
  absl::StatusOr<std::vector<procfs::NetDevice>> devices = procfs::ReadNetDevices(class_net, {.statistics = false});
  if (!devices.ok()) return devices.status();
  for (const procfs::NetDevice& device : *devices) {
    inputs.devices.push_back(DescribeDevice(class_net, device));
  }

  if (netlink == nullptr) {
    map.notes.push_back("netdev netlink: not opened; queues mapped from /proc/interrupts names");
  } else {
    absl::StatusOr<std::vector<NapiInfo>> napis = netlink->ListNapis(std::nullopt);
    absl::StatusOr<std::vector<NetdevQueue>> queues =
        napis.ok() ? netlink->ListQueues(std::nullopt) : napis.status();
    if (napis.ok() && queues.ok()) {
      inputs.napis = *std::move(napis);
      inputs.queues = *std::move(queues);
    } else {
      map.notes.push_back(
          absl::StrCat(queues.status().message(), "; queues mapped from /proc/interrupts names"));
    }
  }

  // Affinity only for the irqs that serve queues: a large host has thousands of irqs.
  std::string affinity_problem;
  for (const QueueBinding& binding : BuildQueueMap(inputs)) {
    if (!binding.irq || inputs.affinity.count(*binding.irq) != 0) continue;
    const std::string directory = absl::StrCat(paths.proc, "/irq/", *binding.irq, "/");
    std::optional<std::vector<int>> smp =
        ReadCpuListFile(directory + "smp_affinity_list", &affinity_problem);
    if (!smp) continue;
    IrqAffinity affinity;
    affinity.smp_affinity = *std::move(smp);
    affinity.effective_affinity =
        ReadCpuListFile(directory + "effective_affinity_list", &affinity_problem);
    inputs.affinity.emplace(*binding.irq, std::move(affinity));
  }
  if (!affinity_problem.empty()) {
    map.notes.push_back(absl::StrCat("irq affinity: ", affinity_problem));
  }
  map.bindings = BuildQueueMap(inputs);
  map.napi_threads = NapiThreadsOf(inputs);
  if (inputs.napis) AddOtherNapiThreads(paths.proc, *inputs.napis, map);
  return map;
}

}  // namespace nictune::collect
