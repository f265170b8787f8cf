#include "algos/tags.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace nbrcoll::algos {
namespace {

template <class Fragment>
void number_by_peer(std::vector<Fragment>& fragments) {
  auto key = [&](std::size_t i) {
    const Fragment& f = fragments[i];
    return std::tuple(f.peer, f.origin, f.share.lo, f.share.hi, f.share.total);
  };
  std::vector<std::size_t> order(fragments.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  int tag = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k > 0 && fragments[order[k]].peer != fragments[order[k - 1]].peer) tag = 0;
    fragments[order[k]].tag = tag++;
  }
}

}  // namespace

void assign_canonical_tags(Plan& plan) {
  number_by_peer(plan.sends);
  number_by_peer(plan.recvs);
}

}  // namespace nbrcoll::algos
