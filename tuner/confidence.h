// SPDX-License-Identifier: Apache-2.0
// How much a recommendation can be trusted, from how much data the window saw.
#pragma once

#include <cstdint>

#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

// The samples' factor: min(1, samples / full_samples), what a window of `samples` intervals can
// reach at most, whatever its packets.
double SampleConfidence(uint32_t samples, const PolicyConfig& config);

// What a recommendation's confidence is multiplied by where the interrupt cost it rests on is
// assumed, not measured (a host without the irq and napi probes, an emulated NIC).
inline constexpr double kAssumedInterruptCostConfidence = 0.8;

// SampleConfidence * min(1, packets / full_packets), with the counts in the reason.
Confidence ConfidenceFrom(const Observation& obs, uint64_t packets, const PolicyConfig& config);

// Lowers a confidence by factor and appends why ("interrupt cost not measured, assumed 2 us").
Confidence Discount(Confidence confidence, double factor, const char* why);

}  // namespace nictune::tuner
