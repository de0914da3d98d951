// SPDX-License-Identifier: Apache-2.0
// The tuner's view of a device's coalescing and ring settings.
#pragma once

#include "agent/collect/device_settings.h"
#include "tuner/observation.h"

namespace nictune::observe {

// A field is supported when the driver reported it (over the ioctl fallback every field is
// reported, so support cannot be told there). driver is the device's driver name: it supplies
// the rx-usecs step and maximum ethtool does not report, for the drivers whose limits we know.
tuner::CoalesceState CoalesceStateOf(const collect::DeviceSettings& settings,
                                     const std::string& driver);

}  // namespace nictune::observe
