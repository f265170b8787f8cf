// Which kinds a rank's lists let the MPI's own collective run
// (src/state/handoff_vote.h: kinds_the_mpi_runs), by each MPI's known bugs.
#include <gtest/gtest.h>

#include <vector>

#include "state/handoff_vote.h"

namespace nbrcoll {
namespace {

constexpr int kNull = -2;  // stands for MPI_PROC_NULL
constexpr unsigned kAllgather = 1U << 0, kAllgatherv = 1U << 1, kAlltoall = 1U << 2, kAlltoallv = 1U << 3,
                   kAlltoallw = 1U << 4;
constexpr unsigned kButW = kAllgather | kAllgatherv | kAlltoall | kAlltoallv;

unsigned kinds(MpiBugs mpi, const std::vector<int>& in, const std::vector<int>& out) {
  return kinds_the_mpi_runs(mpi, in, out, kNull);
}

TEST(HandoffVote, AlltoallwIsNeverVoted) {
  for (const MpiBugs mpi : {MpiBugs::kOpenMpi41, MpiBugs::kMpich40, MpiBugs::kUntested})
    EXPECT_EQ(kinds(mpi, {1, 2}, {2, 1}) & kAlltoallw, 0U);
}

TEST(HandoffVote, OpenMpiRefusesProcNullAndInNeighboursOnly) {
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {1, 2}, {2, 1}), kButW);
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {1, 1, 0}, {0, 1, 1}), kButW);  // self and double edges
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {}, {}), kButW);                // no neighbours at all
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {}, {3}), kButW);               // out-neighbours only
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {3}, {}), 0U);                  // in-neighbours only: it hangs
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {1, kNull}, {1}), 0U);          // it crashes on MPI_PROC_NULL
  EXPECT_EQ(kinds(MpiBugs::kOpenMpi41, {1}, {kNull, 1}), 0U);
}

TEST(HandoffVote, MpichRefusesAlltoallOnADoubleEdge) {
  EXPECT_EQ(kinds(MpiBugs::kMpich40, {1, 2}, {2, 1}), kButW);
  EXPECT_EQ(kinds(MpiBugs::kMpich40, {3}, {}), kButW);
  EXPECT_EQ(kinds(MpiBugs::kMpich40, {1, kNull, kNull}, {kNull, 1}), kButW);  // MPI_PROC_NULL twice is no peer
  EXPECT_EQ(kinds(MpiBugs::kMpich40, {1, 2, 1}, {2}), kButW & ~kAlltoall);
  EXPECT_EQ(kinds(MpiBugs::kMpich40, {2}, {0, 2, 2}), kButW & ~kAlltoall);
}

TEST(HandoffVote, AnUntestedMpiGetsNothing) {
  EXPECT_EQ(kinds(MpiBugs::kUntested, {1, 2}, {2, 1}), 0U);
}

}  // namespace
}  // namespace nbrcoll
