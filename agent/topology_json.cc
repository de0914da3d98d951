// SPDX-License-Identifier: Apache-2.0
#include "agent/topology_json.h"

#include <utility>

#include "nlohmann/json.hpp"

namespace nictune::agent {
namespace {

using nlohmann::json;

template <typename T>
void Put(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

json CoalesceToJson(const driver::netlink::CoalesceSettings& c) {
  json j{{"source", c.source}};
  // Only what the driver reports: an absent field is a parameter the driver does not support.
  Put(j, "rx_usecs", c.rx_usecs);
  Put(j, "rx_max_frames", c.rx_max_frames);
  Put(j, "rx_usecs_irq", c.rx_usecs_irq);
  Put(j, "rx_max_frames_irq", c.rx_max_frames_irq);
  Put(j, "tx_usecs", c.tx_usecs);
  Put(j, "tx_max_frames", c.tx_max_frames);
  Put(j, "use_adaptive_rx", c.use_adaptive_rx);
  Put(j, "use_adaptive_tx", c.use_adaptive_tx);
  Put(j, "pkt_rate_low", c.pkt_rate_low);
  Put(j, "rx_usecs_low", c.rx_usecs_low);
  Put(j, "pkt_rate_high", c.pkt_rate_high);
  Put(j, "rx_usecs_high", c.rx_usecs_high);
  Put(j, "rate_sample_interval", c.rate_sample_interval);
  Put(j, "use_cqe_mode_rx", c.use_cqe_mode_rx);
  Put(j, "use_cqe_mode_tx", c.use_cqe_mode_tx);
  return j;
}

json RingsToJson(const driver::netlink::RingSettings& r) {
  json j{{"source", r.source}};
  Put(j, "rx", r.rx);
  Put(j, "rx_max", r.rx_max);
  Put(j, "tx", r.tx);
  Put(j, "tx_max", r.tx_max);
  Put(j, "rx_buf_len", r.rx_buf_len);
  Put(j, "cqe_size", r.cqe_size);
  return j;
}

json Unavailable(bool unsupported, const std::string& error) {
  return {{"supported", !unsupported}, {"error", error}};
}

}  // namespace

nlohmann::json QueueWindowsToJson(const std::vector<QueueWindow>& queues) {
  json out = json::array();
  for (const auto& q : queues) {
    const auto& b = q.binding;
    json j{{"device", b.device},
           {"ifindex", b.ifindex},
           {"queue", b.queue},
           {"kind", collect::QueueKindName(b.kind)},
           {"cpus", b.cpus},
           {"map_source", b.source}};
    Put(j, "irq", b.irq);
    Put(j, "napi_id", b.napi_id);
    Put(j, "napi_thread", b.napi_thread);
    Put(j, "interrupts_per_s", q.interrupts_per_s);
    Put(j, "irq_handler_time_share", q.irq_handler_time_share);
    Put(j, "polls_per_s", q.polls_per_s);
    Put(j, "packets_per_poll", q.packets_per_poll);
    Put(j, "budget_exhausted_fraction", q.budget_exhausted_fraction);
    Put(j, "rx_share", q.rx_share);
    Put(j, "cpu_softirq_share", q.cpu_softirq_share);
    Put(j, "cpu_hardirq_share", q.cpu_hardirq_share);
    Put(j, "napi_poller_share", q.napi_poller_share);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json DeviceSettingsToJson(const std::vector<collect::DeviceSettings>& settings) {
  json out = json::array();
  for (const auto& s : settings) {
    json j{{"device", s.device}};
    j["coalesce"] = s.coalesce ? CoalesceToJson(*s.coalesce)
                               : Unavailable(s.coalesce_unsupported, s.coalesce_error);
    j["rings"] = s.rings ? RingsToJson(*s.rings) : Unavailable(s.rings_unsupported, s.rings_error);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace nictune::agent
