#include "tuner/policy_rmem.h"

#include <algorithm>
#include <cmath>
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

Recommendation Base(Knob knob, Scope scope, std::string target, int64_t current,
                    const Confidence& confidence) {
  Recommendation r;
  r.knob = knob;
  r.knob_name = std::string(KnobName(knob));
  r.scope = scope;
  r.target = std::move(target);
  r.current = current;
  r.recommended = current;
  r.confidence = confidence;
  return r;
}

// Rounds bytes up to a page and into range; doubles far beyond int64 clamp before the cast.
int64_t PageUp(double bytes, KnobRange range) {
  const double bounded = std::clamp(bytes, 0.0, static_cast<double>(range.max));
  const int64_t pages = static_cast<int64_t>(std::ceil(bounded / kPage));
  return std::clamp(pages * kPage, range.min, range.max);
}

struct Need {
  const QueuePlan* source = nullptr;
  double bytes = 0;
  std::string arithmetic;
};

}  // namespace

std::vector<Recommendation> RecommendRmem(const Observation& obs,
                                          const std::vector<QueuePlan>& plans,
                                          const PolicyConfig& config) {
  std::vector<Recommendation> out;
  const HostKnobs& host = obs.host;
  uint64_t packets = 0;
  uint64_t proto_mem_drops = 0;
  for (const QueuePlan& p : plans) {
    packets = std::max(packets, p.queue->rx_packets);
    proto_mem_drops = std::max(proto_mem_drops, p.queue->drops.proto_mem);
  }
  const Confidence confidence = ConfidenceFrom(obs, packets, config);

  Need default_need;  // worst socket that uses rmem_default
  Need any_need;      // worst socket overall (udp_rmem_min)
  int64_t so_rcvbuf_max = 0;
  for (const QueuePlan& p : plans) {
    const IntervalPlan& plan = p.plan;
    if (plan.worst_socket.empty()) continue;
    // A saturated CPU falls behind whatever the buffer; the coalescing policy says so.
    if (plan.cpu_saturated || !std::isfinite(plan.rcvbuf_needed_bytes)) continue;
    const FillInputs& in = plan.worst_inputs;
    Need need{&p, plan.rcvbuf_needed_bytes, plan.rcvbuf_formula};
    if (need.bytes > any_need.bytes) any_need = need;
    if (need.bytes <= in.rcvbuf_bytes) continue;  // fits at its interval
    if (plan.worst_socket_rcvbuf_locked) {
      // The application owns its buffer: advice only, and rmem_max must let the value through.
      const KnobRange range = TunerRange(Knob::kSoRcvbuf);
      Recommendation advice = Base(Knob::kSoRcvbuf, Scope::kSocket, plan.worst_socket,
                                   static_cast<int64_t>(in.rcvbuf_bytes / 2), confidence);
      const double half = std::ceil(need.bytes / 2);
      advice.recommended = static_cast<int64_t>(
          std::clamp(half, static_cast<double>(range.min), static_cast<double>(range.max)));
      advice.inputs = plan.inputs;
      advice.formula = absl::StrCat(
          plan.formula, "; ", need.arithmetic,
          absl::StrFormat("; the kernel doubles SO_RCVBUF: ceil(%.0f / 2) = %.0f -> SO_RCVBUF %d",
                          need.bytes, half, advice.recommended));
      if (2 * static_cast<double>(advice.recommended) >= need.bytes) {
        advice.expected_effect =
            "the socket holds a whole interrupt interval of packets: no overflow predicted";
      } else {
        advice.expected_effect =
            "capped: overflow still predicted, lower the rate or the drain gap";
        advice.unresolved = absl::StrFormat(
            "socket %s needs %.0f B, above twice the SO_RCVBUF cap %d: lower the rate or the "
            "drain gap",
            plan.worst_socket, need.bytes, range.max);
      }
      advice.expected_gain = 1.0;
      so_rcvbuf_max = std::max(so_rcvbuf_max, advice.recommended);
      out.push_back(std::move(advice));
    } else if (need.bytes > default_need.bytes) {
      default_need = need;
    }
  }

  Recommendation rmem_default =
      Base(Knob::kRmemDefault, Scope::kHost, "host", host.rmem_default, confidence);
  if (default_need.source != nullptr &&
      default_need.bytes > static_cast<double>(host.rmem_default)) {
    const KnobRange range = TunerRange(Knob::kRmemDefault);
    rmem_default.recommended = std::max(host.rmem_default, PageUp(default_need.bytes, range));
    rmem_default.inputs = default_need.source->plan.inputs;
    rmem_default.formula =
        absl::StrCat(default_need.source->plan.formula, "; ", default_need.arithmetic,
                     absl::StrFormat(" -> rmem_default %d (rounded up to 4 KiB, cap %d)",
                                     rmem_default.recommended, range.max));
    if (static_cast<double>(rmem_default.recommended) >= default_need.bytes) {
      rmem_default.expected_effect =
          "sockets on the default buffer hold a whole interval: no overflow predicted";
    } else {
      rmem_default.expected_effect = "capped: overflow still predicted";
      rmem_default.unresolved = absl::StrFormat(
          "socket %s needs %.0f B, above the rmem cap %d: lower the rate or the drain gap",
          default_need.source->plan.worst_socket, default_need.bytes, range.max);
    }
    rmem_default.expected_gain = 1.0;
  } else {
    rmem_default.formula = absl::StrFormat(
        "every socket on the default buffer fits its interval (largest need %.0f B <= "
        "rmem_default %d B) -> keep",
        default_need.bytes, host.rmem_default);
    rmem_default.expected_effect = "no change";
  }

  Recommendation rmem_max = Base(Knob::kRmemMax, Scope::kHost, "host", host.rmem_max, confidence);
  const int64_t wanted_max = std::max(rmem_default.recommended, so_rcvbuf_max);
  if (wanted_max > host.rmem_max) {
    const KnobRange range = TunerRange(Knob::kRmemMax);
    rmem_max.recommended = std::max(host.rmem_max, std::clamp(wanted_max, range.min, range.max));
    rmem_max.formula = absl::StrFormat(
        "rmem_max >= max(rmem_default %d, largest SO_RCVBUF advice %d) = %d -> rmem_max %d",
        rmem_default.recommended, so_rcvbuf_max, wanted_max, rmem_max.recommended);
    rmem_max.expected_effect = "lets the bigger buffers take effect";
    rmem_max.expected_gain = 1.0;
  } else {
    rmem_max.formula =
        absl::StrFormat("rmem_max %d >= max(rmem_default %d, largest SO_RCVBUF advice %d) -> keep",
                        host.rmem_max, rmem_default.recommended, so_rcvbuf_max);
    rmem_max.expected_effect = "no change";
  }

  Recommendation udp_min =
      Base(Knob::kUdpRmemMin, Scope::kHost, "host", host.udp_rmem_min, confidence);
  const double pressure_drops = PerSecond(proto_mem_drops, obs.window);
  udp_min.inputs.push_back({"proto_mem_drops", pressure_drops, "1/s"});
  if (pressure_drops > 0 && any_need.source != nullptr &&
      any_need.bytes > static_cast<double>(host.udp_rmem_min)) {
    const KnobRange range = TunerRange(Knob::kUdpRmemMin);
    udp_min.recommended = std::max(host.udp_rmem_min, PageUp(any_need.bytes, range));
    udp_min.formula = absl::StrCat(
        any_need.arithmetic,
        absl::StrFormat("; UDP memory pressure dropped %.2f/s and under pressure a socket keeps "
                        "only udp_rmem_min -> udp_rmem_min %d (cap %d)",
                        pressure_drops, udp_min.recommended, range.max));
    udp_min.expected_effect = "sockets keep one interval of packets under udp_mem pressure";
    udp_min.expected_gain = 1.0;
  } else {
    udp_min.formula = absl::StrFormat(
        "UDP memory pressure drops %.2f/s (none, or the need %.0f B is covered) -> keep",
        pressure_drops, any_need.bytes);
    udp_min.expected_effect = "no change";
  }

  out.push_back(std::move(rmem_default));
  out.push_back(std::move(rmem_max));
  out.push_back(std::move(udp_min));
  return out;
}

}  // namespace nictune::tuner
