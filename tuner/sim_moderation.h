// SPDX-License-Identifier: Apache-2.0
// Interrupt moderation for the simulator: when an armed interrupt fires. Static rx-usecs /
// rx-frames, ixgbe's adaptive ITR classes, or lib/dim's net_dim profile walk; the adaptive ones
// learn from what each NAPI cycle processed, as the drivers do at napi_complete time.
#pragma once

#include <cstdint>

#include "tuner/sim_scenario.h"

namespace nictune::tuner {

class SimModerator {
 public:
  explicit SimModerator(const ModerationConfig& config);

  // The interrupt fires this long after its timer starts; 0: as soon as a packet is pending.
  int64_t IntervalNs() const;
  // The interrupt also fires once this many packets are pending; 0: no frame threshold.
  int64_t FrameThreshold() const;
  // true: every new packet restarts the timer (DIM's CQE mode); false: the timer runs from the
  // first packet that found the interrupt armed.
  bool RestartsOnEachPacket() const;

  // NAPI completed and re-armed the interrupt; packets and bytes were taken since the previous
  // completion.
  void OnNapiComplete(int64_t now_ns, uint64_t packets, uint64_t bytes);

  // How many times an adaptive scheme changed its interval so far.
  uint64_t changes() const { return changes_; }

 private:
  enum class IxgbeClass { kLowest, kLow, kBulk };
  enum class DimTuneState { kParkingOnTop, kParkingTired, kGoingRight, kGoingLeft };
  struct DimStats {
    uint64_t ppms = 0;  // packets per ms
    uint64_t bpms = 0;  // bytes per ms
    uint64_t epms = 0;  // interrupt events per ms
  };
  struct DimSample {
    int64_t time_ns = 0;
    uint64_t events = 0;
    uint64_t packets = 0;
    uint64_t bytes = 0;
  };
  enum class StatsCompare { kBetter, kSame, kWorse };

  void IxgbeUpdate(uint64_t packets, uint64_t bytes);
  void DimUpdate(int64_t now_ns, uint64_t packets, uint64_t bytes);
  bool DimDecide(const DimStats& current);  // true when the profile changed
  static StatsCompare DimCompare(const DimStats& current, const DimStats& previous);
  bool DimStep();  // false when it hit an edge or got tired (and parked)
  bool DimOnTop() const;
  void DimTurn();
  void DimExitParking();

  ModerationConfig config_;
  uint64_t changes_ = 0;

  // ixgbe: the interval in the driver's quarter-microsecond units (q_vector->itr).
  IxgbeClass ixgbe_class_ = IxgbeClass::kLowest;
  uint64_t ixgbe_itr_quarter_us_ = 0;

  // net_dim
  int dim_profile_ = 0;
  DimTuneState dim_state_ = DimTuneState::kParkingOnTop;
  int dim_steps_left_ = 0;
  int dim_steps_right_ = 0;
  int dim_tired_ = 0;
  DimStats dim_prev_;
  bool dim_measuring_ = false;
  DimSample dim_start_;
  DimSample dim_total_;
};

}  // namespace nictune::tuner
