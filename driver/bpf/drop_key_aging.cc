// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/drop_key_aging.h"

#include <cstring>

#include "absl/container/flat_hash_set.h"

namespace nictune::driver::bpf {

DropKeyAging::DropKeyAging(uint32_t capacity, DropKeyAgingOptions options)
    : capacity_(capacity), options_(options) {}

DropKeyAging::KeyBytes DropKeyAging::BytesOf(const nictune_drop_key& key) {
  KeyBytes bytes;
  std::memcpy(bytes.data(), &key, sizeof(key));
  return bytes;
}

nictune_drop_key DropKeyAging::GroupOf(const nictune_drop_key& key) {
  nictune_drop_key group = key;
  group.local_port = 0;
  group.socket_cookie = 0;
  return group;
}

std::vector<size_t> DropKeyAging::SelectIdle(
    std::span<const std::pair<nictune_drop_key, uint64_t>> held, uint64_t now_ns) {
  const bool pressed =
      static_cast<double>(held.size()) > options_.pressure_share * static_cast<double>(capacity_);
  absl::flat_hash_map<KeyBytes, Seen> now_held;
  now_held.reserve(held.size());
  std::vector<size_t> idle;
  for (size_t i = 0; i < held.size(); ++i) {
    const auto& [key, total] = held[i];
    const KeyBytes bytes = BytesOf(key);
    const auto before = held_.find(bytes);
    if (before == held_.end() || before->second.total != total) {
      now_held[bytes] = Seen{.total = total, .changed_ns = now_ns};
      continue;
    }
    const uint64_t idle_ns = now_ns - before->second.changed_ns;
    if (idle_ns >= options_.idle_ns || (pressed && idle_ns > 0)) {
      idle.push_back(i);
    } else {
      now_held[bytes] = before->second;
    }
  }
  held_ = std::move(now_held);
  return idle;
}

void DropKeyAging::Retire(const nictune_drop_key& key, uint64_t total, uint64_t now_ns) {
  ++pruned_;
  held_.erase(BytesOf(key));
  if (total == 0) return;
  Seen& group = groups_[BytesOf(GroupOf(key))];
  group.total += total;
  group.changed_ns = now_ns;
}

std::vector<std::pair<nictune_drop_key, uint64_t>> DropKeyAging::PrunedGroups(
    std::span<const std::pair<nictune_drop_key, uint64_t>> held, uint64_t now_ns) {
  absl::flat_hash_set<KeyBytes> groups_held;
  for (const auto& [key, total] : held) groups_held.insert(BytesOf(GroupOf(key)));
  std::vector<std::pair<nictune_drop_key, uint64_t>> out;
  for (auto it = groups_.begin(); it != groups_.end();) {
    const bool forgotten = now_ns - it->second.changed_ns >= options_.forget_group_ns &&
                           !groups_held.contains(it->first);
    if (forgotten) {
      groups_.erase(it++);
      continue;
    }
    nictune_drop_key key;
    std::memcpy(&key, it->first.data(), sizeof(key));
    out.emplace_back(key, it->second.total);
    ++it;
  }
  return out;
}

}  // namespace nictune::driver::bpf
