// SPDX-License-Identifier: Apache-2.0
#include "tuner/confidence.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace nictune::tuner {

double SampleConfidence(uint32_t samples, const PolicyConfig& config) {
  return config.full_confidence_samples == 0
             ? 1.0
             : std::min(1.0, static_cast<double>(samples) / config.full_confidence_samples);
}

Confidence ConfidenceFrom(const Observation& obs, uint64_t packets, const PolicyConfig& config) {
  const double by_samples = SampleConfidence(obs.samples, config);
  const double by_packets =
      config.full_confidence_packets == 0
          ? 1.0
          : std::min(1.0, static_cast<double>(packets) /
                              static_cast<double>(config.full_confidence_packets));
  Confidence c;
  c.value = by_samples * by_packets;
  // Tenths of a second: a window's clock reads a few microseconds off its nominal length.
  c.reason = absl::StrFormat("%u samples over %.1f s, %u packets", obs.samples,
                             absl::ToDoubleSeconds(obs.window), packets);
  return c;
}

Confidence Discount(Confidence confidence, double factor, const char* why) {
  confidence.value *= std::clamp(factor, 0.0, 1.0);
  absl::StrAppend(&confidence.reason, "; ", why);
  return confidence;
}

}  // namespace nictune::tuner
