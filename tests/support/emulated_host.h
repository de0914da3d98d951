// SPDX-License-Identifier: Apache-2.0
// A receiving host built on the emulated NIC for closed-loop tests and demos: the real
// nictune-emulated-nic process (its own namespace, TAP and control socket) sending one UDP flow
// to a SlowReceiver in that namespace. The receiver shares the NIC's CPU at a lower SCHED_FIFO
// priority, so it drains only between the NIC's bursts, as a reader on the softirq's CPU does:
// a burst larger than the socket overflows it, whatever else loads the host. Everything is torn
// down by the destructor, also when a test fails half way.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "driver/emulated/counters.h"
#include "tests/support/slow_receiver.h"
#include "tests/support/subprocess.h"
#include "tests/support/udp_receiver.h"

namespace nictune::testing_support {

struct EmulatedHostOptions {
  std::string nic_binary;  // path of nictune-emulated-nic
  // Its control socket; empty: a path of its own. A NIC started on the path of one that stopped is
  // what an agent configured with that path sees as the device coming back.
  std::string control_socket;
  std::string device = "emu0";
  std::string address = "10.77.0.1";  // the TAP's own address, in the NIC's namespace only
  uint16_t port = 9000;
  double rate_pps = 10000;
  int frame_bytes = 128;  // Ethernet frame without FCS
  int64_t rx_usecs = 100;
  int64_t ring_size = 4096;
  int cpu = 1;  // the NIC's and the receiver's CPU
  int nic_fifo_priority = 10;
  int receiver_fifo_priority = 5;  // below the NIC's: it runs between bursts only
  // The NIC busy-polls this long before each interrupt instead of sleeping to it: a hardware
  // timer fires on time, a sleeping thread wakes tens of microseconds late.
  int64_t nic_spin_us = 0;
  // The NIC stops by itself after this, a bound on the traffic if the owner never gets to stop it.
  absl::Duration max_run = absl::Minutes(3);
  int rcvbuf_bytes = 0;  // the receiver's SO_RCVBUF request (the kernel doubles it)
  unsigned int batch = 64;
  absl::Duration drain_gap = absl::ZeroDuration();
};

// The NIC the apply-mode tests tune (the closed-loop test's flow and socket): 10000 pps of 128-byte
// frames into a receiver whose SO_RCVBUF request of 12000 bytes holds about 31 of them, bounded to
// two minutes. It starts at rx-usecs 100, where nothing drops; at 8192 us each burst overflows the
// socket and the tuner asks for about 2800 us.
EmulatedHostOptions SmallSocketNicOptions(const std::string& nic_binary);

class EmulatedHost {
 public:
  // Starts the NIC, measures the truesize the kernel charges for one of the flow's datagrams on a
  // calibration socket, then starts the receiver and the flow.
  static absl::StatusOr<std::unique_ptr<EmulatedHost>> Start(const EmulatedHostOptions& options);
  EmulatedHost(const EmulatedHost&) = delete;
  EmulatedHost& operator=(const EmulatedHost&) = delete;
  ~EmulatedHost();

  const std::string& netns() const { return netns_; }
  const std::string& control_socket() const { return control_socket_; }
  const EmulatedHostOptions& options() const { return options_; }
  // rmem_alloc / datagrams queued on the calibration socket: skb->truesize of one datagram.
  int64_t truesize_bytes() const { return truesize_bytes_; }
  SlowReceiver& receiver() { return *receiver_; }

  absl::StatusOr<driver::emulated::EmulatedNicCounters> Counters() const;
  absl::Status SetRate(double rate_pps);
  // A moderation setting over the control socket (driver/emulated/control_protocol.h's keys:
  // rx_usecs, rx_frames, adaptive_rx, ring_size), as the agent's knob provider reads and writes it.
  absl::StatusOr<int64_t> Knob(const std::string& key) const;
  absl::Status SetKnob(const std::string& key, int64_t value);
  // Several of them, key -> value.
  absl::StatusOr<std::map<std::string, int64_t>> Knobs(const std::vector<std::string>& keys) const;
  absl::StatusOr<int64_t> RxUsecs() const;

  // Closes the receiver's socket and opens a new one on the same port with another read batch and
  // drain gap (same SO_RCVBUF, same CPU and priority): a receiver that became slower.
  absl::Status ReplaceReceiver(unsigned int batch, absl::Duration drain_gap);
  // The same with another SO_RCVBUF request (same batch and drain gap as the receiver started
  // with): an application that asked for a smaller buffer.
  absl::Status ReplaceReceiverBuffer(int rcvbuf_bytes);

 private:
  EmulatedHost(EmulatedHostOptions options, std::string netns, std::string control_socket)
      : options_(std::move(options)),
        netns_(std::move(netns)),
        control_socket_(std::move(control_socket)) {}

  absl::Status Calibrate();
  absl::Status StartReceiver(unsigned int batch, absl::Duration drain_gap);

  EmulatedHostOptions options_;
  std::string netns_;
  std::string control_socket_;
  std::unique_ptr<BackgroundProgram> nic_;
  std::unique_ptr<SlowReceiver> receiver_;
  int64_t truesize_bytes_ = 0;
};

// "rx_frames=24 rx_usecs=5000", for test output.
std::string DescribeKnobs(const std::map<std::string, int64_t>& values);

}  // namespace nictune::testing_support
