// SPDX-License-Identifier: Apache-2.0
#include "agent/model/window_json.h"

#include <cmath>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::model {
namespace {

using nlohmann::json;

template <typename T>
void Put(json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

json CpuToJson(const CpuWindow& c) {
  json j{{"cpu", c.cpu}};
  if (c.split) {
    j["split"] = {{"source", "procfs"},          {"user", c.split->user},
                  {"system", c.split->system},   {"hardirq", c.split->hardirq},
                  {"softirq", c.split->softirq}, {"idle", c.split->idle},
                  {"steal", c.split->steal}};
  }
  if (c.bpf_hardirq_share || c.bpf_softirq_share) {
    json b{{"source", "bpf"}};
    Put(b, "hardirq", c.bpf_hardirq_share);
    Put(b, "softirq", c.bpf_softirq_share);
    Put(b, "net_rx", c.bpf_net_rx_share);
    Put(b, "net_tx", c.bpf_net_tx_share);
    if (!c.bpf_softirq_source.empty()) b["softirq_source"] = c.bpf_softirq_source;
    j["time_share"] = b;
  }
  if (c.net_rx_softirqs_per_s || c.net_tx_softirqs_per_s) {
    json s{{"source", "procfs"}};
    Put(s, "net_rx_per_s", c.net_rx_softirqs_per_s);
    Put(s, "net_tx_per_s", c.net_tx_softirqs_per_s);
    j["softirqs"] = s;
  }
  if (c.softnet_processed_per_s) {
    json s{{"source", "procfs"}};
    Put(s, "processed_per_s", c.softnet_processed_per_s);
    Put(s, "dropped_per_s", c.softnet_dropped_per_s);
    Put(s, "time_squeeze_per_s", c.time_squeeze_per_s);
    Put(s, "backlog_len", c.backlog_len);
    j["softnet"] = s;
  }
  return j;
}

json IrqToJson(const IrqWindow& i) {
  json per_cpu = json::object();
  for (const auto& [cpu, rate] : i.per_cpu_per_s) per_cpu[std::to_string(cpu)] = rate;
  json j{{"irq", i.irq},
         {"actions", i.actions},
         {"chip", i.chip},
         {"count", i.count},
         {"per_s", i.per_s},
         {"per_cpu_per_s", per_cpu},
         {"source", SourceName(i.source)}};
  if (i.handler_time_share) {
    j["handler"] = {{"source", "bpf"},
                    {"time_share", *i.handler_time_share},
                    {"mean_ns", i.mean_handler_ns.value_or(0)}};
  }
  return j;
}

// "coverage": the share of the window the figure's probe saw, and the total it was scaled to
// ("coverage", or the kernel counter: "rx_packets", "Udp.RcvbufErrors"): a dashboard tells a
// measured figure (share 1) from an estimate by it.
json CoverageToJson(const Coverage& c) { return {{"share", c.share}, {"scaled_to", c.scaled_to}}; }

json ProbeToJson(const ProbeWindow& p) {
  return {{"hook", p.hook},
          {"mode", p.mode},
          {"coverage", p.coverage},
          {"events_per_s", p.events_per_s},
          {"cost_ns_per_event", p.cost_ns_per_event},
          {"cost_measured", p.cost_measured}};
}

json NapiToJson(const NapiWindow& n) {
  return {{"napi_id", n.napi_id},
          {"ifindex", n.ifindex},
          {"thread_pid", n.thread_pid},
          {"device", n.device},
          {"source", "bpf"},
          {"polls", n.polls},
          {"polls_per_s", n.polls_per_s},
          {"work_per_s", n.work_per_s},
          {"packets_per_poll", n.packets_per_poll},
          {"budget", n.budget},
          {"budget_exhausted_fraction", n.budget_exhausted_fraction},
          {"tx_completions_per_s", n.tx_completions_per_s},
          {"rx_share", n.rx_share},
          {"work_histogram", n.work_histogram},
          {"coverage", CoverageToJson(n.coverage)},
          {"other_namespace", n.other_namespace}};
}

json DeviceToJson(const DeviceWindow& d) {
  return {{"name", d.name},           {"ifindex", d.ifindex},     {"driver", d.driver},
          {"rx_queues", d.rx_queues}, {"tx_queues", d.tx_queues}, {"source", "sysfs"},
          {"per_s", d.per_s}};
}

json DropToJson(const DropWindow& d) {
  return {{"reason", d.reason},
          {"reason_name", d.reason_name},
          {"protocol", d.protocol},
          {"l4_protocol", d.l4_protocol},
          {"ifindex", d.ifindex},
          {"device", d.device},
          {"local_port", d.local_port},
          {"socket_cookie", d.socket_cookie},
          {"netns_inode", d.netns_inode},
          {"other_namespace", d.other_namespace},
          {"map_full", d.map_full},
          {"unseen_by_sample", d.unseen_by_sample},
          {"beyond_series_cap", d.beyond_series_cap},
          {"count", d.count},
          {"per_s", d.per_s},
          {"source", "bpf"},
          {"coverage", CoverageToJson(d.coverage)}};
}

// "bpf" for the probes' events, "sock_diag" for the kernel's own counters, or both.
std::string SocketSource(const SocketWindow& s) {
  const bool probes = s.coverage.share > 0;
  if (!s.fill) return "bpf";
  return probes ? "bpf, sock_diag" : "sock_diag";
}

json SocketToJson(const SocketWindow& s) {
  json j{{"cookie", s.key.cookie},
         {"family", s.key.family},
         {"protocol", s.key.protocol},
         {"local_port", s.key.local_port},
         {"netns_inode", s.key.netns_inode},
         {"enqueues_per_s", s.enqueues_per_s},
         {"rcvbuf", s.rcvbuf},
         {"peak_fill", s.peak_fill},
         {"longest_drain_gap_s", s.longest_drain_gap_s},
         {"open_drain_wait_s", s.open_drain_wait_s},
         // nictune_socket_drain_gap_seconds: the longer of the two, null where no read was timed
         {"longest_drain_wait_s",
          s.drain_gap_seen_below_s > 0 ? json(LongestDrainWait(s)) : json(nullptr)},
         // null: no limit, the probe watched the window through
         {"drain_gap_seen_below_s",
          std::isinf(s.drain_gap_seen_below_s) ? json(nullptr) : json(s.drain_gap_seen_below_s)},
         {"rcvqueue_full", s.rcvqueue_full},
         {"udp_queue_failures", s.udp_queue_failures},
         {"source", SocketSource(s)},
         {"coverage", CoverageToJson(s.coverage)}};
  Put(j, "mean_truesize", s.mean_truesize);
  Put(j, "kernel_drops", s.kernel_drops);
  Put(j, "fill", s.fill);
  if (s.fill) j["rmem_alloc"] = s.rmem_alloc;
  return j;
}

json TruesizeToJson(const TruesizeWindow& t) {
  return {{"ifindex", t.ifindex},       {"device", t.device},       {"samples", t.samples},
          {"mean_bytes", t.mean_bytes}, {"p50_bytes", t.p50_bytes}, {"p99_bytes", t.p99_bytes},
          {"log2_buckets", t.buckets},  {"source", "bpf"},
          {"other_namespace", t.other_namespace}};
}

template <typename T, typename F>
json ArrayOf(const std::vector<T>& items, F to_json) {
  json a = json::array();
  for (const auto& item : items) a.push_back(to_json(item));
  return a;
}

json NicQueueToJson(const NicQueueWindow& q) {
  return {{"queue", q.queue},
          {"napi_thread", q.napi_thread},
          {"interrupts", q.interrupts},
          {"interrupts_per_s", q.interrupts_per_s},
          {"delivered_per_s", q.delivered_per_s},
          {"missed_per_s", q.missed_per_s}};
}

json EmulatedNicToJson(const EmulatedNicWindow& e) {
  return {{"device", e.device},
          {"source", SourceName(e.source)},
          {"seconds", e.seconds},
          {"interrupts", e.interrupts},
          {"interrupts_per_s", e.interrupts_per_s},
          {"delivered_per_s", e.delivered_per_s},
          {"missed_per_s", e.missed_per_s},
          {"stalls", e.stalls},
          {"stall_seconds", e.stall_seconds},
          {"queues", ArrayOf(e.queues, NicQueueToJson)}};
}

json NapiPollerToJson(const NapiPollerWindow& p) {
  json j = {{"source", "procfs"},
            {"pid", p.poller.pid},
            {"device", p.poller.device},
            {"cpu_share", p.cpu_share}};
  if (p.poller.queue >= 0) j["queue"] = p.poller.queue;
  if (p.poller.napi_id) j["napi_id"] = *p.poller.napi_id;
  if (p.poller.other_namespace) j["other_namespace"] = true;
  return j;
}

// The agent's own namespace's counters, and each other one's Udp counters keyed by its inode.
json ProtocolsToJson(const Window& w) {
  json by_netns = json::object();
  for (const auto& [netns, counters] : w.netns_protocol_per_s) {
    by_netns[std::to_string(netns)] = counters;
  }
  return {{"source", "procfs"}, {"counters", w.protocol_per_s}, {"by_netns", by_netns}};
}

}  // namespace

nlohmann::json WindowToJson(const Window& w) {
  json sources = json::array();
  for (const auto& s : w.sources) {
    sources.push_back({{"name", s.name},
                       {"kind", SourceName(s.source)},
                       {"in_use", s.in_use},
                       {"detail", s.detail}});
  }
  json budget = nullptr;
  if (w.probe_budget) {
    budget = {{"cpu_share", w.probe_budget->cpu_share},
              {"planning_cpu_share", w.probe_budget->planning_cpu_share},
              {"planned_cpu_share", w.probe_budget->planned_cpu_share},
              {"over_budget", w.probe_budget->over_budget}};
  }
  return {{"start_unix_ns", w.start_unix_ns},
          {"end_unix_ns", w.end_unix_ns},
          {"seconds", w.seconds},
          {"sources", sources},
          {"cpus", ArrayOf(w.cpus, CpuToJson)},
          {"irqs", ArrayOf(w.irqs, IrqToJson)},
          {"napis", ArrayOf(w.napis, NapiToJson)},
          {"devices", ArrayOf(w.devices, DeviceToJson)},
          {"drops", ArrayOf(w.drops, DropToJson)},
          {"sockets", ArrayOf(w.sockets, SocketToJson)},
          {"truesize", ArrayOf(w.truesize, TruesizeToJson)},
          {"emulated_nics", ArrayOf(w.emulated_nics, EmulatedNicToJson)},
          {"napi_pollers", ArrayOf(w.napi_pollers, NapiPollerToJson)},
          {"protocol_per_s", ProtocolsToJson(w)},
          {"probes", ArrayOf(w.probes, ProbeToJson)},
          {"probe_budget", budget}};
}

}  // namespace nictune::model
