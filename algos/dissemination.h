// The rounds of a dissemination reduction over n ranks: in round k each
// rank sends what it holds to the rank 2^k after it and combines what the
// rank 2^k before it sent (both modulo n). After ceil(log2 n) rounds every
// rank's value covers all n ranks, some more than once, so the combining
// operation must be idempotent (MAX, MIN, AND, OR): no special case for an
// n that is not a power of two. A rank's senders differ from round to round
// (2^k < n for every round), so one tag serves every round. Pure;
// unit-tested (tests/unit/algos/dissemination_test.cpp).
#pragma once

namespace nbrcoll::algos {

// Rounds for n ranks: ceil(log2 n), 0 for one rank (or none).
constexpr int dissemination_rounds(int n) {
  int rounds = 0;
  for (long long reach = 1; reach < n; reach *= 2) ++rounds;
  return rounds;
}

struct RoundPeers {
  int to = 0;    // the rank this one sends to
  int from = 0;  // the rank this one receives from
};

// Rank `rank`'s peers in round `round` of n ranks (0 <= round <
// dissemination_rounds(n)).
constexpr RoundPeers dissemination_peers(int n, int rank, int round) {
  const long long step = (1LL << round) % n;
  return {static_cast<int>((rank + step) % n), static_cast<int>((rank - step + n) % n)};
}

}  // namespace nbrcoll::algos
