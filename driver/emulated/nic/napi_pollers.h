// SPDX-License-Identifier: Apache-2.0
// The TAP's NAPI instances run threaded: one kernel thread per queue polls it, as a NIC's
// interrupt hands its ring to a poll. The threads are pinned to the NIC's CPU one SCHED_FIFO step
// below the NIC's own thread, so that an interrupt's whole burst is in the TAP's queue before the
// poll starts, and the poll then takes it in batches of up to the NAPI weight (64), back to back,
// before a reader of lower priority on that CPU runs (driver/emulated/README.md, "The model").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::driver::emulated {

struct NapiPollerConfig {
  std::string device;     // the TAP, in the calling process's network namespace
  size_t queues = 1;      // NAPI instances the device has (one per queue)
  int cpu = 0;            // where the NIC's thread runs
  int fifo_priority = 0;  // the pollers' SCHED_FIFO priority; 0: the normal scheduler
};

// Hands `frame` to the kernel as received on `queue`; true when the device took it.
using DeliverToQueue = std::function<bool(size_t queue, std::span<const uint8_t> frame)>;

// Switches the device to threaded NAPI, places the new poller threads and returns their pids in
// queue order: each queue is handed one frame the stack discards (a foreign destination MAC), and
// the thread that runs next is that queue's. FailedPrecondition when the number of new threads is
// not the number of queues or a queue's thread cannot be told.
absl::StatusOr<std::vector<pid_t>> StartThreadedNapi(const NapiPollerConfig& config,
                                                     const DeliverToQueue& deliver);

// Pids of the kernel's NAPI threads whose name ("napi/DEV-ID", cut to 15 characters) fits
// `device`, in whatever namespace it is.
std::vector<pid_t> ListNapiThreads(const std::string& device);

}  // namespace nictune::driver::emulated
