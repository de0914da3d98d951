// SPDX-License-Identifier: Apache-2.0
// dev_weight, dev_weight_rx_bias and dev_weight_tx_bias from the rx vs tx share of poll work.
#pragma once

#include <vector>

#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// The kernel gives the backlog (RPS, netif_rx) a quota of dev_weight * dev_weight_rx_bias per poll
// and the qdisc dev_weight * dev_weight_tx_bias packets per run. When a quota is hit (time_squeeze
// or polls that use their whole weight) the biases follow the measured split of poll work:
// r = rx / tx; rx_bias = round(r), tx_bias = 1 (or the mirror when tx dominates), within 1..16.
// dev_weight halves when softirq starves user space and doubles when the backlog drops packets
// with softirq room. Otherwise, or with too little poll work seen, the values are kept.
std::vector<Recommendation> RecommendWeight(const Observation& obs, const PolicyConfig& config);

}  // namespace nictune::tuner
