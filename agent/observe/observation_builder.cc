// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/observation_builder.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "agent/observe/coalesce_state.h"
#include "agent/observe/queue_groups.h"
#include "agent/observe/socket_placement.h"
#include "agent/observe/window_counts.h"

namespace nictune::observe {
namespace {

constexpr char kProtoMemReason[] = "PROTO_MEM";
constexpr char kBacklogNapiDevice[] = "backlog";

bool BpfInUse(const model::Window& window) {
  return std::any_of(window.sources.begin(), window.sources.end(),
                     [](const auto& s) { return s.source == model::Source::kBpf && s.in_use; });
}

const model::DeviceWindow* FindDevice(const model::Window& window, const std::string& name) {
  for (const model::DeviceWindow& d : window.devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

uint64_t DeviceCount(const model::DeviceWindow* device, const char* statistic, double seconds) {
  if (device == nullptr) return 0;
  const auto it = device->per_s.find(statistic);
  return it == device->per_s.end() ? 0 : CountOver(it->second, seconds);
}

uint64_t ProtocolCount(const model::Window& window, const char* counter) {
  const auto it = window.protocol_per_s.find(counter);
  return it == window.protocol_per_s.end() ? 0 : CountOver(it->second, window.seconds);
}

uint64_t DropsOnDevice(const model::Window& window, const std::string& device,
                       absl::string_view reason) {
  uint64_t count = 0;
  for (const model::DropWindow& d : window.drops) {
    if (d.device == device && d.reason_name == reason) count += d.count;
  }
  return count;
}

// The devices to observe: the configured ones, else every device with mapped rx queues or rx
// traffic in the window. Loopback has no NIC, ring or interrupt to tune.
// A device whose sockets the window placed is observed even when this namespace does not have it
// (an emulated NIC's TAP in its own namespace, a container's veth): its sockets are what overflow.
std::vector<std::string> DevicesToObserve(const model::Window& window,
                                          const agent::Topology& topology,
                                          const SocketPlacement& sockets,
                                          const ObservationOptions& options) {
  if (!options.devices.empty()) return options.devices;
  std::set<std::string> names;
  for (const PlacedSocket& p : sockets.placed) names.insert(p.device);
  for (const collect::QueueBinding& b : topology.queue_map.bindings) {
    if (b.kind != collect::QueueKind::kTx) names.insert(b.device);
  }
  for (const model::DeviceWindow& d : window.devices) {
    if (DeviceCount(&d, "rx_packets", window.seconds) > 0) names.insert(d.name);
  }
  names.erase("lo");
  return {names.begin(), names.end()};
}

std::vector<const model::NapiWindow*> NapisOf(const model::Window& window, const QueueGroup& g,
                                              const model::DeviceWindow* device) {
  std::vector<const model::NapiWindow*> out;
  for (const model::NapiWindow& n : window.napis) {
    if (!g.napi_ids.empty()) {
      if (std::find(g.napi_ids.begin(), g.napi_ids.end(), n.napi_id) != g.napi_ids.end()) {
        out.push_back(&n);
      }
      continue;
    }
    // ifindex is unique only within a network namespace: the name must agree too.
    if (n.device != g.device || n.device == kBacklogNapiDevice) continue;
    if (device != nullptr && n.ifindex != device->ifindex) continue;
    if (std::find(g.tx_only_napi_ids.begin(), g.tx_only_napi_ids.end(), n.napi_id) !=
        g.tx_only_napi_ids.end()) {
      continue;
    }
    out.push_back(&n);
  }
  return out;
}

// The CPUs serving the group: the topology's, else those its irqs fired on, else (no irq known:
// veth, or a device whose softirq follows its senders) every CPU of the window.
std::vector<int> ServingCpus(const model::Window& window, const QueueGroup& g) {
  if (!g.cpus.empty()) return g.cpus;
  std::set<int> cpus;
  for (const model::IrqWindow& irq : window.irqs) {
    if (std::find(g.irqs.begin(), g.irqs.end(), irq.irq) == g.irqs.end()) continue;
    for (const auto& [cpu, rate] : irq.per_cpu_per_s) cpus.insert(cpu);
  }
  if (cpus.empty()) {
    for (const model::CpuWindow& c : window.cpus) cpus.insert(c.cpu);
  }
  return {cpus.begin(), cpus.end()};
}

void AddIrqs(const model::Window& window, const QueueGroup& g, tuner::QueueObservation& q) {
  double handler_seconds = 0;
  uint64_t timed_interrupts = 0;
  for (const model::IrqWindow& irq : window.irqs) {
    if (std::find(g.irqs.begin(), g.irqs.end(), irq.irq) == g.irqs.end()) continue;
    q.interrupts += irq.count;
    if (irq.handler_time_share) {
      handler_seconds += *irq.handler_time_share * window.seconds;
      timed_interrupts += irq.count;
    }
  }
  // Only the hard IRQ handler is measured; the poll's fixed part is not separable from its work.
  if (timed_interrupts > 0)
    q.interrupt_cost_s = handler_seconds / static_cast<double>(timed_interrupts);
}

void AddNapis(const model::Window& window, const std::vector<const model::NapiWindow*>& napis,
              tuner::QueueObservation& q) {
  for (const model::NapiWindow* n : napis) {
    q.polls += n->polls;
    q.polls_budget_exhausted +=
        CountOver(n->budget_exhausted_fraction * static_cast<double>(n->polls), 1.0);
    q.rx_work += CountOver(n->work_per_s, window.seconds);
    q.tx_work += CountOver(n->tx_completions_per_s, window.seconds);
  }
}

// The highest interval rate of the instances' work over a tuner window (their peaks need not
// coincide, so the sum is an upper bound); 0 in an interval's window.
double PeakWork(const std::vector<const model::NapiWindow*>& napis) {
  double peak = 0;
  for (const model::NapiWindow* n : napis) peak += n->peak_work_per_s;
  return peak;
}

// softnet_stat time_squeeze and backlog drops, and the /proc/stat split, of the serving CPUs.
// A CPU that serves several queues lends its squeezes to each: the kernel counts them per CPU.
void AddCpus(const model::Window& window, const std::vector<int>& cpus,
             tuner::QueueObservation& q) {
  tuner::CpuSplit sum;
  int split_cpus = 0;
  for (const model::CpuWindow& c : window.cpus) {
    if (std::find(cpus.begin(), cpus.end(), c.cpu) == cpus.end()) continue;
    if (c.time_squeeze_per_s) q.time_squeeze += CountOver(*c.time_squeeze_per_s, window.seconds);
    if (c.softnet_dropped_per_s) {
      q.drops.backlog += CountOver(*c.softnet_dropped_per_s, window.seconds);
    }
    if (!c.split) continue;
    sum.hardirq += c.split->hardirq;
    sum.softirq += c.split->softirq;
    sum.user += c.split->user;
    sum.idle += c.split->idle;
    sum.steal += c.split->steal;
    ++split_cpus;
  }
  // Without /proc/stat the split stays zero: no idle measured is not "no idle".
  if (split_cpus == 0) return;
  const double n = split_cpus;
  q.serving_cpus = static_cast<uint32_t>(split_cpus);
  q.cpu = {.hardirq = sum.hardirq / n,
           .softirq = sum.softirq / n,
           .user = sum.user / n,
           .idle = sum.idle / n,
           .steal = sum.steal / n};
}

bool Holds(const std::vector<uint32_t>& ids, std::optional<uint32_t> id) {
  return id && std::find(ids.begin(), ids.end(), *id) != ids.end();
}

// Whether the poller polls one of the group's rx queues: for the whole device any of its
// pollers but those of instances the map ties to tx queues alone.
bool PollsGroup(const model::NapiPoller& poller, const QueueGroup& g) {
  if (poller.device != g.device || Holds(g.tx_only_napi_ids, poller.napi_id)) return false;
  if (g.queue < 0) {
    return !poller.napi_id || g.napi_ids.empty() || Holds(g.napi_ids, poller.napi_id);
  }
  return poller.queue == g.queue || Holds(g.napi_ids, poller.napi_id);
}

// The threaded NAPI pollers' time of the group's instances, their mean share of a CPU. A thread
// runs on one CPU at a time; the two clocks' readings a moment apart may make it a little more.
void AddPollerCpu(const model::Window& window, const QueueGroup& g, tuner::QueueObservation& q) {
  double sum = 0;
  uint32_t pollers = 0;
  for (const model::NapiPollerWindow& p : window.napi_pollers) {
    if (!PollsGroup(p.poller, g)) continue;
    sum += std::clamp(p.cpu_share, 0.0, 1.0);
    ++pollers;
  }
  q.napi_pollers = pollers;
  q.napi_poller_cpu = pollers > 0 ? sum / pollers : 0;
}

// The time the queue's delivery was held off: the serving CPUs' mean steal over the window, or
// the emulated NIC's stalled interrupts' lateness when that is longer (its thread can be held off
// by the guest's own scheduler too).
double StallSeconds(const model::Window& window, const std::string& device,
                    const tuner::QueueObservation& q) {
  double seconds = q.cpu.steal * window.seconds;
  for (const model::EmulatedNicWindow& nic : window.emulated_nics) {
    if (nic.device == device) seconds = std::max(seconds, nic.stall_seconds);
  }
  return seconds;
}

// Socket and protocol-memory drops, which the kernel does not count per queue: by the drop
// records of the device when the BPF drop probe recorded any, else the host-wide UDP counters of
// /proc/net/snmp (procfs cannot tell which device's packets they were). The drops of the sockets
// placed on the device are a floor: where the drop probe's slots missed every drop of a
// namespace, its count is one record without a device, while the socket census counted each
// socket's.
void AddProtocolDrops(const model::Window& window, const std::string& device,
                      uint64_t placed_socket_drops, tuner::QueueObservation& q) {
  if (!window.drops.empty()) {
    q.drops.socket = DropsOnDevice(window, device, model::kSocketRcvbuffReason);
    q.drops.proto_mem = DropsOnDevice(window, device, kProtoMemReason);
  } else {
    q.drops.socket = ProtocolCount(window, "Udp.RcvbufErrors");
    q.drops.proto_mem = ProtocolCount(window, "Udp.MemErrors");
  }
  q.drops.socket = std::max(q.drops.socket, placed_socket_drops);
}

bool WorseSocket(const tuner::SocketObservation& a, const tuner::SocketObservation& b) {
  if (a.drops != b.drops) return a.drops > b.drops;
  if (a.peak_fill != b.peak_fill) return a.peak_fill > b.peak_fill;
  return a.packets > b.packets;
}

// A device polls through NAPI instances of its own when the queue map ties queues to it (by NAPI
// or by interrupt) or the NAPI probe saw it poll; a veth without GRO or a TAP does not, and
// cannot poll in threads.
bool HasNapi(const agent::Topology& topology, const std::string& device,
             const std::vector<tuner::QueueObservation>& queues) {
  const auto& bindings = topology.queue_map.bindings;
  return std::any_of(bindings.begin(), bindings.end(),
                     [&](const collect::QueueBinding& b) { return b.device == device; }) ||
         std::any_of(queues.begin(), queues.end(), [&](const tuner::QueueObservation& q) {
           return q.device == device && q.polls > 0;
         });
}

// Each CPU's idle share over the window, summed, but the isolated CPUs': the host's idle CPUs
// that a kernel thread can run on.
double IdleCpus(const model::Window& window, const std::vector<int>& isolated) {
  double idle = 0;
  for (const model::CpuWindow& c : window.cpus) {
    if (!c.split || std::find(isolated.begin(), isolated.end(), c.cpu) != isolated.end()) continue;
    idle += c.split->idle;
  }
  return idle;
}

const collect::DeviceSettings* SettingsOf(const agent::Topology& topology,
                                          const std::string& device) {
  for (const collect::DeviceSettings& s : topology.settings) {
    if (s.device == device) return &s;
  }
  return nullptr;
}

}  // namespace

tuner::Observation BuildObservation(const model::Window& window, const agent::Topology& topology,
                                    const tuner::HostKnobs& host, const ObservationOptions& options,
                                    SocketPlacement* placement) {
  tuner::Observation obs{.window = absl::Seconds(window.seconds),
                         .samples = options.samples,
                         .host = host,
                         .queues = {},
                         .idle_cpus = IdleCpus(window, options.isolated_cpus)};
  const bool bpf = BpfInUse(window);
  SocketPlacement sockets = PlaceSockets(window, host, options.socket_devices,
                                         RememberedDevices(options.remembered_sockets));
  for (PlacedSocket& carried :
       CarriedSockets(options.remembered_sockets, sockets, window, options.socket_carry)) {
    sockets.placed.push_back(std::move(carried));
  }

  const std::map<std::string, uint64_t> placed_drops = PlacedDropsByDevice(sockets);
  for (const std::string& name : DevicesToObserve(window, topology, sockets, options)) {
    const model::DeviceWindow* device = FindDevice(window, name);
    const std::vector<QueueGroup> groups =
        GroupQueues(topology.queue_map.bindings, name, /*per_queue_napi_counts=*/bpf);
    tuner::CoalesceState coalesce;
    if (const collect::DeviceSettings* settings = SettingsOf(topology, name)) {
      coalesce = CoalesceStateOf(*settings, device == nullptr ? "" : device->driver);
    }
    const auto defer = options.defer.find(name);

    std::vector<tuner::SocketObservation> device_sockets;
    for (const PlacedSocket& p : sockets.placed) {
      if (p.device == name) device_sockets.push_back(p.socket);
    }
    const auto placed = placed_drops.find(name);
    const uint64_t placed_socket_drops = placed == placed_drops.end() ? 0 : placed->second;
    std::sort(device_sockets.begin(), device_sockets.end(), WorseSocket);
    if (device_sockets.size() > options.max_sockets_per_queue) {
      device_sockets.resize(options.max_sockets_per_queue);
    }

    for (const QueueGroup& g : groups) {
      tuner::QueueObservation q{.device = name, .queue = g.queue, .rx_rings = g.rx_queues};
      const std::vector<const model::NapiWindow*> napis = NapisOf(window, g, device);
      AddIrqs(window, g, q);
      AddNapis(window, napis, q);
      AddCpus(window, ServingCpus(window, g), q);
      AddPollerCpu(window, g, q);
      // One group covers the device's packets: its counter. Several: only their NAPI work tells.
      q.rx_packets =
          groups.size() == 1 ? DeviceCount(device, "rx_packets", window.seconds) : q.rx_work;
      q.rx_peak_rate_pps = groups.size() > 1    ? PeakWork(napis)
                           : device != nullptr ? device->peak_rx_packets_per_s
                                               : 0;
      // Ring overflow is counted per device; every queue of it shares the ring pressure signal.
      q.drops.ring = DeviceCount(device, "rx_missed_errors", window.seconds) +
                     DeviceCount(device, "rx_fifo_errors", window.seconds) +
                     DeviceCount(device, "rx_over_errors", window.seconds);
      AddProtocolDrops(window, name, placed_socket_drops, q);
      q.stall_s = StallSeconds(window, name, q);
      q.sockets = device_sockets;  // the socket's queue is unknown: each of the device's
      q.coalesce = coalesce;
      if (defer != options.defer.end()) q.defer = defer->second;
      obs.queues.push_back(std::move(q));
    }
    const auto threaded = options.napi_threaded.find(name);
    if (threaded != options.napi_threaded.end() && HasNapi(topology, name, obs.queues)) {
      for (tuner::QueueObservation& q : obs.queues) {
        if (q.device == name) q.napi_threaded = static_cast<int32_t>(threaded->second);
      }
    }
  }
  if (placement != nullptr) *placement = sockets;
  return obs;
}

}  // namespace nictune::observe
