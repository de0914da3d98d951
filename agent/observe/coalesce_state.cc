// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/coalesce_state.h"

namespace nictune::observe {
namespace {

struct DriverLimits {
  const char* driver;
  uint32_t rx_usecs_granularity;
  uint32_t rx_usecs_max;
};

// ixgbe programs EITR in 2 us units and rejects rx-usecs above IXGBE_MAX_EITR >> 2.
constexpr DriverLimits kKnownDrivers[] = {
    {"ixgbe", 2, 1022},
};

}  // namespace

tuner::CoalesceState CoalesceStateOf(const collect::DeviceSettings& settings,
                                     const std::string& driver) {
  tuner::CoalesceState state;
  if (const auto& c = settings.coalesce) {
    state.rx_usecs_supported = c->rx_usecs.has_value();
    state.rx_frames_supported = c->rx_max_frames.has_value();
    state.adaptive_rx_supported = c->use_adaptive_rx.has_value();
    state.rx_usecs = c->rx_usecs.value_or(0);
    state.rx_frames = c->rx_max_frames.value_or(0);
    state.adaptive_rx = c->use_adaptive_rx.value_or(false);
  }
  if (const auto& r = settings.rings) {
    state.rx_ring_size = r->rx.value_or(0);
    state.rx_ring_max = r->rx_max.value_or(0);
  }
  for (const DriverLimits& limits : kKnownDrivers) {
    if (driver == limits.driver) {
      state.rx_usecs_granularity = limits.rx_usecs_granularity;
      state.rx_usecs_max = limits.rx_usecs_max;
    }
  }
  return state;
}

}  // namespace nictune::observe
