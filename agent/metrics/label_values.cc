// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/label_values.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/procfs/softirqs.h"

namespace nictune::metrics {

std::string SoftirqVectorName(uint32_t vector) { return procfs::SoftirqVectorName(vector); }

std::string ProtocolName(uint16_t ethertype, uint8_t l4_protocol) {
  switch (l4_protocol) {
    case 1:
      return "icmp";
    case 6:
      return "tcp";
    case 17:
      return "udp";
    case 58:
      return "icmpv6";
    case 132:
      return "sctp";
    default:
      break;
  }
  switch (ethertype) {
    case 0:
      return "";
    case 0x0800:
      return "ipv4";
    case 0x0806:
      return "arp";
    case 0x86dd:
      return "ipv6";
    default:
      return "other";
  }
}

std::string DeviceCounterMetricName(const std::string& statistic) {
  std::string rest = statistic;
  if (absl::StartsWith(statistic, "rx_")) {
    rest = absl::StrCat("receive_", statistic.substr(3));
  } else if (absl::StartsWith(statistic, "tx_")) {
    rest = absl::StrCat("transmit_", statistic.substr(3));
  } else if (statistic == "multicast") {
    rest = "receive_multicast";
  } else if (statistic == "collisions") {
    rest = "transmit_collisions";
  }
  return absl::StrCat("nictune_network_", rest, "_total");
}

prometheus::Labels WithCpu(prometheus::Labels labels, int cpu, bool per_cpu) {
  if (per_cpu) labels.emplace("cpu", std::to_string(cpu));
  return labels;
}

prometheus::Labels DropLabels(const model::DropWindow& drop) {
  if (drop.beyond_series_cap) {
    return {{"reason", kOverflow}, {"proto", kOverflow}, {"device", kOverflow}};
  }
  const std::string reason =
      drop.reason_name.empty() ? std::to_string(drop.reason) : drop.reason_name;
  if (drop.map_full) {
    return {{"reason", reason}, {"proto", kUnattributed}, {"device", kUnattributed}};
  }
  std::string device = drop.device;
  if (drop.unseen_by_sample) {
    device = kUnattributed;
  } else if (drop.other_namespace) {
    device = kOtherNamespacesDevice;
  }
  return {{"reason", reason},
          {"proto", ProtocolName(drop.protocol, drop.l4_protocol)},
          {"device", device}};
}

prometheus::Labels NapiLabels(const model::NapiWindow& napi) {
  if (napi.other_namespace) return {{"device", kOtherNamespacesDevice}};
  return {{"napi_id", std::to_string(napi.napi_id)}, {"device", napi.device}};
}

prometheus::Labels NapiPollerLabels(const model::NapiPoller& poller) {
  if (poller.other_namespace) return {{"device", kOtherNamespacesDevice}};
  if (!poller.napi_id) return {{"device", poller.device}};
  return {{"napi_id", std::to_string(*poller.napi_id)}, {"device", poller.device}};
}

std::vector<const model::SocketWindow*> TopSockets(const std::vector<model::SocketWindow>& sockets,
                                                   size_t max_sockets) {
  const auto drops = [](const model::SocketWindow* s) {
    return s->rcvqueue_full + s->udp_queue_failures;
  };
  std::vector<const model::SocketWindow*> ranked;
  ranked.reserve(sockets.size());
  for (const auto& s : sockets) ranked.push_back(&s);
  std::sort(ranked.begin(), ranked.end(), [&](const auto* a, const auto* b) {
    if (drops(a) != drops(b)) return drops(a) > drops(b);
    if (a->peak_fill != b->peak_fill) return a->peak_fill > b->peak_fill;
    return a->key.cookie < b->key.cookie;
  });
  if (ranked.size() > max_sockets) ranked.resize(max_sockets);
  return ranked;
}

}  // namespace nictune::metrics
