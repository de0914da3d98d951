// SPDX-License-Identifier: Apache-2.0
// Told of every value the actuator, the agent's only writer, put in the kernel: so that what the
// agent reads back next is known for its own (agent/service/knob_change_watch.h).
#pragma once

#include <cstdint>

#include "driver/knobs/knob_access.h"

namespace nictune::actuate {

class WriteObserver {
 public:
  virtual ~WriteObserver() = default;
  // The write of `value` landed and the kernel reads back `holds` (the driver may round it).
  virtual void Wrote(const driver::knobs::KnobAddress& address, int64_t holds) = 0;
};

}  // namespace nictune::actuate
