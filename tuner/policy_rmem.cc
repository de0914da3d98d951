// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_rmem.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/fill_math.h"
#include "tuner/limits.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kPage = 4096;

// Rounds bytes up to a page and into range; doubles far beyond int64 clamp before the cast.
int64_t PageUp(double bytes, KnobRange range) {
  const double bounded = std::clamp(bytes, 0.0, static_cast<double>(range.max));
  const int64_t pages = static_cast<int64_t>(std::ceil(bounded / kPage));
  return std::clamp(pages * kPage, range.min, range.max);
}

struct Need {
  const QueuePlan* source = nullptr;
  std::string socket;
  double bytes = 0;
  std::string arithmetic;
};

// Advice for a socket that set SO_RCVBUF: ceil(need / 2), since the kernel doubles the value;
// never below what the socket has (a need past the cap is advised the cap at most).
Recommendation SoRcvbufAdvice(const IntervalPlan& plan, const SocketNeed& socket, const Need& need,
                              const Confidence& confidence) {
  const KnobRange range = TunerRange(Knob::kSoRcvbuf);
  Recommendation advice = Unchanged(Knob::kSoRcvbuf, Scope::kSocket, socket.socket,
                                    static_cast<int64_t>(socket.rcvbuf_bytes / 2), confidence);
  const double half = std::ceil(need.bytes / 2);
  advice.recommended = std::max(
      advice.current, static_cast<int64_t>(std::clamp(half, static_cast<double>(range.min),
                                                      static_cast<double>(range.max))));
  advice.inputs = plan.inputs;
  advice.formula = absl::StrCat(
      plan.formula, "; ", need.arithmetic,
      absl::StrFormat("; the kernel doubles SO_RCVBUF: ceil(%.0f / 2) = %.0f -> SO_RCVBUF %d",
                      std::ceil(need.bytes), half, advice.recommended));
  if (2 * static_cast<double>(advice.recommended) >= need.bytes) {
    advice.expected_effect =
        "the socket holds a whole interrupt interval of packets: no overflow predicted";
  } else {
    advice.expected_effect = "capped: overflow still predicted, lower the rate or the drain gap";
    advice.unresolved = absl::StrFormat(
        "socket %s needs %.0f B, above twice the SO_RCVBUF cap %d: lower the rate or the drain "
        "gap",
        socket.socket, need.bytes, range.max);
  }
  advice.expected_gain = 1.0;
  return advice;
}

// rmem_default raised to the worst need of the sockets on the default buffer.
Recommendation RmemDefault(const HostKnobs& host, const Need& need,
                           const Confidence& confidence) {
  Recommendation r =
      Unchanged(Knob::kRmemDefault, Scope::kHost, "host", host.rmem_default, confidence);
  if (need.source == nullptr || need.bytes <= static_cast<double>(host.rmem_default)) {
    r.formula = absl::StrFormat(
        "every socket on the default buffer fits its interval (largest need %.0f B <= "
        "rmem_default %d B) -> keep",
        need.bytes, host.rmem_default);
    r.expected_effect = "no change";
    return r;
  }
  const KnobRange range = TunerRange(Knob::kRmemDefault);
  r.recommended = std::max(host.rmem_default, PageUp(need.bytes, range));
  r.inputs = need.source->plan.inputs;
  r.formula = absl::StrCat(need.source->plan.formula, "; ", need.arithmetic,
                           absl::StrFormat(" -> rmem_default %d (rounded up to 4 KiB, cap %d)",
                                           r.recommended, range.max));
  if (static_cast<double>(r.recommended) >= need.bytes) {
    r.expected_effect = "sockets on the default buffer hold a whole interval: no overflow predicted";
  } else {
    r.expected_effect = "capped: overflow still predicted";
    r.unresolved = absl::StrFormat(
        "socket %s needs %.0f B, above the rmem cap %d: lower the rate or the drain gap",
        need.socket, need.bytes, range.max);
  }
  r.expected_gain = 1.0;
  return r;
}

// rmem_max at least the default and every SO_RCVBUF advice, so that they take effect.
Recommendation RmemMax(const HostKnobs& host, int64_t rmem_default, int64_t so_rcvbuf_max,
                       const Confidence& confidence) {
  Recommendation r = Unchanged(Knob::kRmemMax, Scope::kHost, "host", host.rmem_max, confidence);
  const int64_t wanted = std::max(rmem_default, so_rcvbuf_max);
  if (wanted <= host.rmem_max) {
    r.formula =
        absl::StrFormat("rmem_max %d >= max(rmem_default %d, largest SO_RCVBUF advice %d) -> keep",
                        host.rmem_max, rmem_default, so_rcvbuf_max);
    r.expected_effect = "no change";
    return r;
  }
  const KnobRange range = TunerRange(Knob::kRmemMax);
  r.recommended = std::max(host.rmem_max, std::clamp(wanted, range.min, range.max));
  r.formula = absl::StrFormat(
      "rmem_max >= max(rmem_default %d, largest SO_RCVBUF advice %d) = %d -> rmem_max %d",
      rmem_default, so_rcvbuf_max, wanted, r.recommended);
  r.expected_effect = "lets the bigger buffers take effect";
  r.expected_gain = 1.0;
  return r;
}

// udp_rmem_min raised to the worst need when UDP memory pressure dropped packets.
Recommendation UdpRmemMin(const Observation& obs, uint64_t proto_mem_drops, const Need& need,
                          const Confidence& confidence) {
  const HostKnobs& host = obs.host;
  Recommendation r =
      Unchanged(Knob::kUdpRmemMin, Scope::kHost, "host", host.udp_rmem_min, confidence);
  const double pressure_drops = PerSecond(proto_mem_drops, obs.window);
  r.inputs.push_back({"proto_mem_drops", pressure_drops, "1/s"});
  if (pressure_drops > 0 && need.source != nullptr &&
      need.bytes > static_cast<double>(host.udp_rmem_min)) {
    const KnobRange range = TunerRange(Knob::kUdpRmemMin);
    r.recommended = std::max(host.udp_rmem_min, PageUp(need.bytes, range));
    r.formula = absl::StrCat(
        need.arithmetic,
        absl::StrFormat("; UDP memory pressure dropped %.2f/s and under pressure a socket keeps "
                        "only udp_rmem_min -> udp_rmem_min %d (cap %d)",
                        pressure_drops, r.recommended, range.max));
    r.expected_effect = "sockets keep one interval of packets under udp_mem pressure";
    r.expected_gain = 1.0;
  } else {
    r.formula = absl::StrFormat(
        "UDP memory pressure drops %.2f/s (none, or the need %.0f B is covered) -> keep",
        pressure_drops, need.bytes);
    r.expected_effect = "no change";
  }
  return r;
}

}  // namespace

std::vector<Recommendation> RecommendRmem(const Observation& obs,
                                          const std::vector<QueuePlan>& plans,
                                          const PolicyConfig& config) {
  std::vector<Recommendation> out;
  uint64_t packets = 0;
  uint64_t proto_mem_drops = 0;
  for (const QueuePlan& p : plans) {
    packets = std::max(packets, p.queue->rx_packets);
    proto_mem_drops = std::max(proto_mem_drops, p.queue->drops.proto_mem);
  }
  // The buffers hold what arrives over the plans' drain gaps: the least measured one speaks for
  // them all.
  Confidence confidence = ConfidenceFrom(obs, packets, config);
  const Confidence measured = confidence;
  for (const QueuePlan& p : plans) {
    const Confidence planned = WithDrainGapCoverage(measured, p.plan);
    if (planned.value < confidence.value) confidence = planned;
  }

  Need default_need;  // the largest need of a socket on rmem_default
  Need any_need;      // the largest need of any socket (udp_rmem_min)
  int64_t so_rcvbuf_max = 0;
  // A socket is listed on every queue of its device: one advice for it, the largest.
  std::map<std::string, size_t> advice_index;
  for (const QueuePlan& p : plans) {
    const IntervalPlan& plan = p.plan;
    // A saturated CPU falls behind whatever the buffer; the coalescing policy says so.
    if (plan.cpu_saturated) continue;
    // Every socket, not the worst alone: a busier socket on the default buffer can need more
    // than a locked one that fills further.
    for (const SocketNeed& socket : plan.socket_needs) {
      if (!std::isfinite(socket.needed_bytes)) continue;
      Need need{&p, socket.socket, socket.needed_bytes, socket.formula};
      if (need.bytes > any_need.bytes) any_need = need;
      if (need.bytes <= socket.rcvbuf_bytes) continue;  // fits at its interval
      if (socket.rcvbuf_locked) {
        // The application owns its buffer: advice only, and rmem_max must let the value through.
        Recommendation advice = SoRcvbufAdvice(plan, socket, need, confidence);
        so_rcvbuf_max = std::max(so_rcvbuf_max, advice.recommended);
        const auto [at, first] = advice_index.try_emplace(socket.socket, out.size());
        if (first) {
          out.push_back(std::move(advice));
        } else if (advice.recommended > out[at->second].recommended) {
          out[at->second] = std::move(advice);
        }
      } else if (need.bytes > default_need.bytes) {
        default_need = need;
      }
    }
  }
  Recommendation rmem_default = RmemDefault(obs.host, default_need, confidence);
  Recommendation rmem_max =
      RmemMax(obs.host, rmem_default.recommended, so_rcvbuf_max, confidence);
  out.push_back(std::move(rmem_default));
  out.push_back(std::move(rmem_max));
  out.push_back(UdpRmemMin(obs, proto_mem_drops, any_need, confidence));
  for (Recommendation& r : out) {
    if (r.recommended > r.current) r.confidence = TowardLongerGaps(measured, r.confidence, "raise");
  }
  return out;
}

}  // namespace nictune::tuner
