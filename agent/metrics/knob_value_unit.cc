// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/knob_value_unit.h"

#include "agent/metrics/family_names.h"

namespace nictune::metrics {

// From the knob's own unit, so that a knob added with a unit lands in its family.
KnobValueUnit ValueUnitOf(tuner::Knob knob) {
  const std::string_view unit = tuner::KnobUnit(knob);
  if (unit == "us" || unit == "ns") return KnobValueUnit::kSeconds;
  if (unit == "B") return KnobValueUnit::kBytes;
  if (unit == "packets" || unit == "frames") return KnobValueUnit::kPackets;
  return KnobValueUnit::kPlain;
}

double ValueScaleOf(tuner::Knob knob) {
  const std::string_view unit = tuner::KnobUnit(knob);
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  return 1;
}

std::string_view CurrentFamilyOf(KnobValueUnit unit) {
  switch (unit) {
    case KnobValueUnit::kSeconds:
      return family::kKnobCurrentSeconds;
    case KnobValueUnit::kBytes:
      return family::kKnobCurrentBytes;
    case KnobValueUnit::kPackets:
      return family::kKnobCurrentPackets;
    case KnobValueUnit::kPlain:
      return family::kKnobCurrent;
  }
  return family::kKnobCurrent;
}

std::string_view RecommendedFamilyOf(KnobValueUnit unit) {
  switch (unit) {
    case KnobValueUnit::kSeconds:
      return family::kKnobRecommendedSeconds;
    case KnobValueUnit::kBytes:
      return family::kKnobRecommendedBytes;
    case KnobValueUnit::kPackets:
      return family::kKnobRecommendedPackets;
    case KnobValueUnit::kPlain:
      return family::kKnobRecommended;
  }
  return family::kKnobRecommended;
}

std::string_view ValueUnitName(KnobValueUnit unit) {
  switch (unit) {
    case KnobValueUnit::kSeconds:
      return "seconds";
    case KnobValueUnit::kBytes:
      return "bytes";
    case KnobValueUnit::kPackets:
      return "packets";
    case KnobValueUnit::kPlain:
      return "";
  }
  return "";
}

}  // namespace nictune::metrics
