// What comparing one scored position of a model with its reference yields;
// the statistics (kld_stats.h) are sums over these.
#pragma once

namespace ck::app {

struct PositionKld {
  double kld;       // KL(reference || model) at this position
  double nll;       // -log q(target)
  double nll_base;  // -log p(target)
  double p_diff;    // q(target) - p(target)
  bool same_top;    // both put their largest probability on the same token
};

}  // namespace ck::app
