// SPDX-License-Identifier: Apache-2.0
#include "tests/support/synthetic_probes.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {
namespace {

constexpr uint32_t kSoftirqVectors = 10;  // HI .. RCU
constexpr uint16_t kEthernetIpv4 = 0x0800;
constexpr uint8_t kUdp = 17;
constexpr uint16_t kAfInet = 2;
constexpr uint16_t kFirstPort = 20000;
constexpr uint64_t kFirstCookie = 4096;
constexpr uint32_t kRcvbuf = 212992;
constexpr uint64_t kTruesize = 2304;  // a 1400-byte datagram's charge on virtio_net
// 6.18's value; the agent goes by the name, which comes from BTF on a real host.
constexpr uint32_t kSocketRcvbuffReason = 6;

// The probe concerns nictuned loads, the per-packet ones last.
struct Concern {
  const char* name;
  bool per_packet;
};
constexpr Concern kConcerns[] = {{"irq", false},     {"softirq", false},  {"napi", false},
                                 {"drops", false},   {"udp_fail", false}, {"txshare", true},
                                 {"sockfill", true}, {"truesize", true}};

}  // namespace

SyntheticProbes::SyntheticProbes(SyntheticProbeShape shape) : shape_(std::move(shape)) {
  Advance(0);
}

void SyntheticProbes::Advance(uint64_t monotonic_ns) {
  const uint64_t t = tick_++;
  driver::BpfCounters c;
  c.monotonic_ns = monotonic_ns;
  const auto queues = static_cast<uint32_t>(shape_.queues);
  const auto cpus = static_cast<uint32_t>(shape_.cpus);

  c.irqs.reserve(queues);
  c.napis.reserve(queues);
  for (uint32_t q = 0; q < queues; ++q) {
    c.irqs.push_back({.irq = shape_.first_queue_irq + q,
                      .cpu = q % cpus,
                      .count = t * 1000,
                      .time_ns = t * 1000 * 1500});
    driver::NapiCounter napi{.napi_id = 8193 + q,
                             .ifindex = shape_.ifindex,
                             .netns_inode = shape_.netns_inode,
                             .device = shape_.device,
                             .polls = t * 1200,
                             .work = t * 10'000,
                             .budget_exhausted = t * 2,
                             .last_budget = 64,
                             .tx_completions = t * 3000};
    napi.work_histogram.assign(driver::kNapiWorkBuckets, 0);
    napi.work_histogram[0] = t * 200;   // the poll that finds nothing and re-arms the irq
    napi.work_histogram[10] = t * 998;  // most polls take a burst of about 10
    napi.work_histogram[64] = t * 2;    // the ones that ran out of budget
    c.napis.push_back(std::move(napi));
  }

  c.softirqs.reserve(static_cast<size_t>(kSoftirqVectors) * cpus);
  for (uint32_t vector = 0; vector < kSoftirqVectors; ++vector) {
    for (uint32_t cpu = 0; cpu < cpus; ++cpu) {
      c.softirqs.push_back({.vector = vector,
                            .cpu = cpu,
                            .count = t * (100 + 50 * vector),
                            .time_ns = t * (100 + 50 * vector) * 4000,
                            .raised = 0});
    }
  }

  // Every socket receives 1000 datagrams a second on the device and overflows 10 of them.
  const auto sockets = static_cast<uint32_t>(shape_.sockets);
  c.sockets.reserve(sockets);
  c.drops.reserve(sockets + 1);
  for (uint32_t s = 0; s < sockets; ++s) {
    const auto port = static_cast<uint16_t>(kFirstPort + s % 40000);
    const uint64_t cookie = kFirstCookie + s;
    const uint64_t enqueues = t * 1000;
    c.sockets.push_back({.key = {.cookie = cookie,
                                 .family = kAfInet,
                                 .protocol = kUdp,
                                 .local_port = port,
                                 .netns_inode = shape_.netns_inode},
                         .enqueues = enqueues,
                         .rcvqueue_full = t * 10,
                         .udp_queue_failures = 0,
                         .rcvbuf = kRcvbuf,
                         .peak_rmem_alloc = kRcvbuf - 2 * kTruesize,
                         .peak_fill = static_cast<double>(kRcvbuf - 2 * kTruesize) / kRcvbuf,
                         .truesize_sum = enqueues * kTruesize,
                         .truesize_samples = enqueues});
    c.drops.push_back({.reason = kSocketRcvbuffReason,
                       .reason_name = "SOCKET_RCVBUFF",
                       .protocol = kEthernetIpv4,
                       .l4_protocol = kUdp,
                       .ifindex = shape_.ifindex,
                       .netns_inode = shape_.netns_inode,
                       .device = shape_.device,
                       .local_port = port,
                       .socket_cookie = cookie,
                       .count = t * 10});
  }
  // Datagrams to ports nobody listens on, which every host has a few of.
  c.drops.push_back({.reason = 3,
                     .reason_name = "NO_SOCKET",
                     .protocol = kEthernetIpv4,
                     .l4_protocol = kUdp,
                     .ifindex = shape_.ifindex,
                     .netns_inode = shape_.netns_inode,
                     .device = shape_.device,
                     .local_port = 9,
                     .count = t * 5});

  driver::TruesizeHistogram truesize{.ifindex = shape_.ifindex,
                                     .netns_inode = shape_.netns_inode,
                                     .device = shape_.device,
                                     .sample_every = 64,
                                     .samples = t * 150,
                                     .bytes = t * 150 * kTruesize};
  truesize.buckets.assign(driver::kTruesizeBuckets, 0);
  truesize.buckets[11] = t * 150;  // [2048, 4096)
  c.truesize.push_back(std::move(truesize));
  counters_ = std::move(c);
}

std::vector<driver::ProbeStatus> SyntheticProbes::Status() const {
  std::vector<driver::ProbeStatus> out;
  for (const Concern& concern : kConcerns) {
    const bool attached = !concern.per_packet || per_packet_on_;
    out.push_back({.name = concern.name,
                   .attach_type = attached ? "tp_btf" : "",
                   .attached = attached,
                   .reason = attached ? "" : "per-packet probes are off",
                   .per_packet = concern.per_packet});
  }
  return out;
}

std::vector<driver::ProbeCost> SyntheticProbes::Cost() const {
  std::vector<driver::ProbeCost> out;
  for (const Concern& concern : kConcerns) {
    out.push_back({.name = absl::StrCat(concern.name, ":synthetic"),
                   .run_cnt = tick_ * 1000,
                   .run_time_ns = tick_ * 1000 * 60});
  }
  return out;
}

absl::Status SyntheticProbes::SetPerPacketProbes(bool on) {
  per_packet_on_ = on;
  return absl::OkStatus();
}

}  // namespace nictune::testing_support
