// Whether a graph is worth its planning: a guess from how many blocking
// calls the recent graphs made, turned into the same answer on every rank
// by the next agreement.
//
// Only a blocking call can take a plan other than linear (auto runs
// nonblocking and persistent calls linear: call/decide.cpp), so a graph
// that makes at most a few blocking calls repays none of the node lists,
// planners, cost rows and allreduce its creation paid for (mesh and
// function-space set-up make dozens of such graphs, and keep many of them
// alive for their nonblocking scatters). Each rank keeps a counter of
// blocking calls for each of the last graphs it created of those that may
// skip their set-up (graph_setup.cpp), live or freed; at the agreement of a
// graph that plans, every rank votes whether the median of those counters
// is at most NBRCOLL_SHORT_GRAPHS, and only where every rank says so are
// the next graphs set up like a one-node graph (linear plans, no
// agreement) until a budget of skips runs out, when a creation plans and
// agrees again and the vote is renewed. The vote is a term of that
// allreduce and the skips are taken in creation order, which every process
// shares for graphs of all world processes made from one communicator
// (creation_line.h): no rank acts on a guess another rank made alone,
// however their histories differ.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace nbrcoll {

// A graph's blocking calls, all its handles together.
using CallCounter = std::atomic<std::uint64_t>;

class LifetimeHistory {
 public:
  // How many recent graphs are remembered, and how many a vote needs.
  static constexpr int kKept = 5;
  static constexpr int kNeeded = 3;

  // A graph created, with the counter its calls add to.
  void add(std::shared_ptr<const CallCounter> calls);
  // Whether the median of the remembered graphs' counts is at most
  // `short_calls` (never with fewer than kNeeded remembered, or with
  // short_calls 0).
  [[nodiscard]] bool looks_short(int short_calls) const;

 private:
  std::array<std::shared_ptr<const CallCounter>, kKept> graphs_;
  int added_ = 0;  // all time; the last kKept are in graphs_ (a ring)
};

// The process's history, behind one mutex.
void remember_graph(std::shared_ptr<const CallCounter> calls);
bool votes_short_lived();

// Creations that skip take one skip each from their creation line
// (creation_line.h); an agreement that saw every rank vote short grants
// kSkipsPerVote, any other agreement of such a graph none.
inline constexpr int kSkipsPerVote = 8;

}  // namespace nbrcoll
