// SPDX-License-Identifier: Apache-2.0
// Switches the per-packet BPF programs (tx share, socket fill, truesize: the probes' main cost on
// a packet flood) on only while the tuner needs them: a sampling interval that shows socket
// pressure (receive-buffer drops from procfs or the drop probe, UDP queue failures, or a socket
// filled to the fill threshold) switches them on; `quiet_windows` tuner windows in a row without
// it switch them off again. Each switch is logged, and the programs' attached state shows it in
// status.
#pragma once

#include <cstdint>
#include <string>

#include "agent/model/window.h"
#include "driver/probe_source.h"

namespace nictune::service {

struct PerPacketSwitchOptions {
  double fill_pressure = 0.5;  // peak fill (rmem_alloc / rcvbuf) that counts as pressure
  uint32_t quiet_windows = 6;  // windows without pressure before the probes go off
};

// What in a tuner window asks for the per-packet probes, e.g. "Udp.RcvbufErrors 1200/s"; empty
// when nothing does.
std::string SocketPressure(const model::Window& window, double fill_pressure);

class PerPacketSwitch {
 public:
  // `probes` must outlive this; the per-packet programs start off (ProbeOptions' default).
  PerPacketSwitch(driver::ProbeSource& probes, PerPacketSwitchOptions options);

  // Called with every sampling interval: pressure switches the probes on at once, so that the
  // tuner window it falls in already measures the sockets. True when it switched them.
  bool OnInterval(const model::Window& interval);
  // Called with every closed tuner window: quiet windows switch the probes off. True when it
  // switched them.
  bool OnTunerWindow(const model::Window& window);

  bool on() const { return on_; }

 private:
  // Switches the probes to !on_; false (logged) when the kernel refused.
  bool Switch(const std::string& why);

  driver::ProbeSource& probes_;
  PerPacketSwitchOptions options_;
  bool on_ = false;
  uint32_t quiet_ = 0;
};

}  // namespace nictune::service
