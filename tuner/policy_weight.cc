// SPDX-License-Identifier: Apache-2.0
#include "tuner/policy_weight.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "tuner/confidence.h"
#include "tuner/cpu_pressure.h"
#include "tuner/limits.h"
#include "tuner/policy_threaded.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

// Saturating sum: counts near 2^64 must not wrap.
uint64_t Add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

}  // namespace

std::vector<Recommendation> RecommendWeight(const Observation& obs, const PolicyConfig& config) {
  const CpuPressure p = AssessCpuPressure(obs, config);
  uint64_t rx = 0, tx = 0, polls = 0, exhausted = 0, backlog_drops = 0;
  for (const QueueObservation& q : obs.queues) {
    rx = Add(rx, q.rx_work);
    tx = Add(tx, q.tx_work);
    polls = Add(polls, q.polls);
    exhausted = Add(exhausted, q.polls_budget_exhausted);
    backlog_drops = Add(backlog_drops, q.drops.backlog);
  }
  const uint64_t work = Add(rx, tx);
  const Confidence confidence = ConfidenceFrom(obs, work, config);
  const HostKnobs& h = obs.host;
  Recommendation rx_bias =
      Unchanged(Knob::kDevWeightRxBias, Scope::kHost, "host", h.dev_weight_rx_bias, confidence);
  Recommendation tx_bias =
      Unchanged(Knob::kDevWeightTxBias, Scope::kHost, "host", h.dev_weight_tx_bias, confidence);
  Recommendation weight =
      Unchanged(Knob::kDevWeight, Scope::kHost, "host", h.dev_weight, confidence);

  const double rx_share = work > 0 ? static_cast<double>(rx) / static_cast<double>(work) : 0;
  const double exhausted_fraction =
      polls > 0 ? std::min(1.0, static_cast<double>(exhausted) / static_cast<double>(polls)) : 0;
  const double backlog_drop_rate = PerSecond(backlog_drops, obs.window);
  for (Recommendation* r : {&rx_bias, &tx_bias, &weight}) {
    r->inputs = {{"rx_work", static_cast<double>(rx), "packets"},
                 {"tx_work", static_cast<double>(tx), "completions"},
                 {"rx_share", rx_share, "fraction"},
                 {"polls_exhausted", exhausted_fraction, "fraction"},
                 {"time_squeeze", p.time_squeeze_per_s, "1/s"},
                 {"backlog_drops", backlog_drop_rate, "1/s"},
                 {"softirq_share", p.cpu.softirq, "fraction"},
                 {"user_share", p.cpu.user, "fraction"}};
  }

  // Biases. The kernel multiplies dev_weight by dev_weight_rx_bias for the backlog's quota
  // (process_backlog: RPS and netif_rx, veth and tun among them) and by dev_weight_tx_bias for the
  // qdisc's dequeue quota (__qdisc_run). Neither bounds a driver's NAPI poll, whose rx/tx split is
  // all the observation holds, so that split is no reason to move them.
  rx_bias.formula = tx_bias.formula = absl::StrFormat(
      "the biases scale the backlog's quota (RPS, netif_rx) and the qdisc's dequeue quota, not a "
      "driver's NAPI poll, whose rx share %.3f is all that is measured -> keep",
      rx_share);
  rx_bias.expected_effect = tx_bias.expected_effect = "no change";

  // dev_weight.
  const KnobRange range = TunerRange(Knob::kDevWeight);
  if (const std::optional<std::string> threads = DeviceToThread(obs, p, config)) {
    weight.formula = ThreadsFirstFormula(p, *threads);
    weight.expected_effect = "no change";
  } else if (p.starving) {
    weight.recommended = std::min(h.dev_weight, std::clamp(h.dev_weight / 2, range.min, range.max));
    weight.formula = absl::StrFormat("%s; softirq starves user space -> dev_weight %d / 2 = %d",
                                     p.summary, h.dev_weight, weight.recommended);
    weight.expected_effect = "shorter backlog polls; more CPU left to user space";
    weight.expected_gain =
        std::clamp((config.user_fair_share - p.cpu.user) / config.user_fair_share, 0.0, 1.0);
  } else if (backlog_drop_rate > 0 && p.room) {
    weight.recommended = std::max(h.dev_weight, std::clamp(h.dev_weight * 2, range.min, range.max));
    weight.formula = absl::StrFormat(
        "%s; backlog drops %.2f/s with softirq below cap %.2f -> dev_weight %d * 2 = %d (cap %d)",
        p.summary, backlog_drop_rate, config.softirq_cap, h.dev_weight, weight.recommended,
        range.max);
    weight.expected_effect = "the backlog drains more per poll; fewer backlog drops";
    weight.expected_gain = 1.0;
  } else {
    weight.formula = absl::StrFormat(
        "%s; no starvation and no backlog drops with softirq room -> keep dev_weight %d", p.summary,
        h.dev_weight);
    weight.expected_effect = "no change";
  }
  return {std::move(weight), std::move(rx_bias), std::move(tx_bias)};
}

}  // namespace nictune::tuner
