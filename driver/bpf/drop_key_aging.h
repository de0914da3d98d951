// SPDX-License-Identifier: Apache-2.0
// Keeps the drop probe's key map bounded (driver/bpf/README.md "Bounded maps"). Keys carry ports
// and sockets, so a flood from many ports would fill the map for good: a key whose count has not
// moved for a while is pruned, and its last count is kept, summed with the other pruned keys of
// its reason, protocol and device, so that every drop still counts in the totals.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "driver/bpf/drops.h"

namespace nictune::driver::bpf {

struct DropKeyAgingOptions {
  // A key whose count has not moved for this long is pruned.
  uint64_t idle_ns = 10'000'000'000;
  // Above this share of the map's capacity, a key that has not moved since the previous read is.
  double pressure_share = 0.5;
  // A group of pruned keys whose sum has not moved for this long, and that no held key belongs
  // to, is forgotten: far longer than any window the agent computes.
  uint64_t forget_group_ns = 3600'000'000'000;
};

class DropKeyAging {
 public:
  DropKeyAging(uint32_t capacity, DropKeyAgingOptions options);

  // Which of the keys the map holds (with their totals at now_ns) to prune now: their indices
  // into `held`, ascending.
  std::vector<size_t> SelectIdle(std::span<const std::pair<nictune_drop_key, uint64_t>> held,
                                 uint64_t now_ns);
  // Adds a pruned key's last total to its group's sum.
  void Retire(const nictune_drop_key& key, uint64_t total, uint64_t now_ns);
  // Each group's sum of pruned keys: the key with its port and socket cleared, and the sum.
  // Forgets groups idle past forget_group_ns that no held key belongs to.
  std::vector<std::pair<nictune_drop_key, uint64_t>> PrunedGroups(
      std::span<const std::pair<nictune_drop_key, uint64_t>> held, uint64_t now_ns);

  uint32_t capacity() const { return capacity_; }
  uint64_t pruned() const { return pruned_; }

 private:
  using KeyBytes = std::array<uint8_t, sizeof(nictune_drop_key)>;
  struct Seen {
    uint64_t total = 0;
    uint64_t changed_ns = 0;  // when the total last moved (or the key was first seen)
  };

  static KeyBytes BytesOf(const nictune_drop_key& key);
  static nictune_drop_key GroupOf(const nictune_drop_key& key);

  uint32_t capacity_;
  DropKeyAgingOptions options_;
  absl::flat_hash_map<KeyBytes, Seen> held_;
  absl::flat_hash_map<KeyBytes, Seen> groups_;
  uint64_t pruned_ = 0;
};

}  // namespace nictune::driver::bpf
