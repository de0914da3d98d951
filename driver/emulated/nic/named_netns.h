// SPDX-License-Identifier: Apache-2.0
// A named network namespace the emulated NIC creates for itself, as `ip netns add` would (a bind
// mount of the namespace under /run/netns/NAME, so `ip -n NAME` and setns by name find it), and
// deletes on shutdown. Creating it moves the calling thread into it; call it before any thread
// starts so that the whole process lives there.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace nictune::driver::emulated {

class NamedNetworkNamespace {
 public:
  // AlreadyExists when /run/netns/NAME exists: never adopt (and later delete) someone else's.
  static absl::StatusOr<std::unique_ptr<NamedNetworkNamespace>> CreateAndEnter(
      const std::string& name);
  NamedNetworkNamespace(const NamedNetworkNamespace&) = delete;
  NamedNetworkNamespace& operator=(const NamedNetworkNamespace&) = delete;
  ~NamedNetworkNamespace();  // Delete(), reporting a failure on stderr

  // Removes the name; the namespace itself goes when its last user (this process) exits.
  absl::Status Delete();

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }

 private:
  NamedNetworkNamespace(std::string name, std::string path)
      : name_(std::move(name)), path_(std::move(path)) {}
  std::string name_;
  std::string path_;
  bool deleted_ = false;
};

}  // namespace nictune::driver::emulated
