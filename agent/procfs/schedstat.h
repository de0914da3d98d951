// SPDX-License-Identifier: Apache-2.0
// /proc/PID/schedstat: "run_ns wait_ns timeslices", the time a task ran on a CPU, waited on a
// runqueue, and its count of timeslices. The first is the task's exact sum_exec_runtime, kept
// with or without CONFIG_SCHEDSTATS; threaded NAPI pollers are read here, whose polls the
// /proc/stat split counts as system time, not softirq.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// The nanoseconds the task ran on a CPU: the first of the line's three numbers.
absl::StatusOr<uint64_t> ParseSchedstatRunNs(std::string_view text, std::string_view path);

// Reads PROC_ROOT/PID/schedstat. NotFound when the task is gone.
absl::StatusOr<uint64_t> ReadTaskRunNs(const std::string& proc_root, uint32_t pid);

}  // namespace nictune::procfs
