// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/knob_value_unit.h"

#include "agent/metrics/family_names.h"

namespace nictune::metrics {
namespace {

struct UnitFamilies {
  std::string_view unit_name;
  std::string_view words;  // how a help text reads the unit
  std::string_view current;
  std::string_view recommended;
};

// Indexed by KnobValueUnit.
constexpr UnitFamilies kFamilies[] = {
    {"seconds", "seconds", family::kKnobCurrentSeconds, family::kKnobRecommendedSeconds},
    {"bytes", "bytes", family::kKnobCurrentBytes, family::kKnobRecommendedBytes},
    {"packets", "packets", family::kKnobCurrentPackets, family::kKnobRecommendedPackets},
    {"polls", "empty polls", family::kKnobCurrentPolls, family::kKnobRecommendedPolls},
    {"ratio", "multiples of dev_weight", family::kKnobCurrentRatio, family::kKnobRecommendedRatio},
    {"enabled", "1 on, 0 off (napi_threaded reads 2 for threads that busy-poll)",
     family::kKnobCurrentEnabled, family::kKnobRecommendedEnabled},
};
static_assert(std::size(kFamilies) == std::size(kKnobValueUnits));

const UnitFamilies& FamiliesOf(KnobValueUnit unit) {
  return kFamilies[static_cast<size_t>(unit)];
}

}  // namespace

std::optional<KnobValueUnit> ValueUnitOfUnit(std::string_view unit) {
  if (unit == "us" || unit == "ns") return KnobValueUnit::kSeconds;
  if (unit == "B") return KnobValueUnit::kBytes;
  // An rx ring's descriptor holds one packet.
  if (unit == "packets" || unit == "frames" || unit == "descriptors")
    return KnobValueUnit::kPackets;
  if (unit == "polls") return KnobValueUnit::kPolls;
  if (unit == "bool") return KnobValueUnit::kEnabled;
  if (unit == "factor") return KnobValueUnit::kRatio;
  return std::nullopt;
}

// From the knob's own unit, so that a knob added with a unit lands in its family. Every knob's
// unit is one of ValueUnitOfUnit's (a unit test holds it), so the fallback is never taken.
KnobValueUnit ValueUnitOf(tuner::Knob knob) {
  return ValueUnitOfUnit(tuner::KnobUnit(knob)).value_or(KnobValueUnit::kRatio);
}

double ValueScaleOf(tuner::Knob knob) {
  const std::string_view unit = tuner::KnobUnit(knob);
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  return 1;
}

std::string_view CurrentFamilyOf(KnobValueUnit unit) { return FamiliesOf(unit).current; }

std::string_view RecommendedFamilyOf(KnobValueUnit unit) { return FamiliesOf(unit).recommended; }

std::string_view ValueUnitName(KnobValueUnit unit) { return FamiliesOf(unit).unit_name; }

std::string_view ValueUnitWords(KnobValueUnit unit) { return FamiliesOf(unit).words; }

}  // namespace nictune::metrics
