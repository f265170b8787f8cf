// nbrcoll's reading of a receive's byte count from its status
// (src/transport/status_bytes.h: MPI_Status fields under Open MPI and MPICH) against
// the MPI's own MPI_Get_elements_x, for messages between ranks (or to self)
// of 0 bytes to 1 MiB, received with byte, int and struct types, into
// receives of exactly their size and larger ones (a short message: what
// came_short in executor.cpp looks for), completed by MPI_Wait and by
// MPI_Waitall.
#include "transport/status_bytes.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/mpi/mpi_check.h"

namespace {

using namespace nbt;

// One message of `bytes` from `from` to `to`, received as `rtype` with room
// for `room` bytes: the status's count by nbrcoll and by the MPI.
void one(int from, int to, int bytes, int room, MPI_Datatype rtype, int rsize, bool waitall) {
  const std::string what = "message of " + std::to_string(bytes) + " bytes into " + std::to_string(room) +
                           " (type size " + std::to_string(rsize) + (waitall ? ", Waitall)" : ", Wait)");
  std::vector<char> out(static_cast<std::size_t>(bytes) + 1, 'x');
  std::vector<char> in(static_cast<std::size_t>(room) + 1, 0);
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status statuses[2];
  if (g_rank == to) MPI_Irecv(in.data(), room / rsize, rtype, from, 7, MPI_COMM_WORLD, &reqs[0]);
  if (g_rank == from) MPI_Isend(out.data(), bytes, MPI_BYTE, to, 7, MPI_COMM_WORLD, &reqs[1]);
  if (waitall) {
    MPI_Waitall(2, reqs, statuses);
  } else {
    MPI_Wait(&reqs[0], &statuses[0]);
    MPI_Wait(&reqs[1], &statuses[1]);
  }
  if (g_rank != to) return;
  MPI_Count mpi = -1;
  MPI_Get_elements_x(&statuses[0], MPI_BYTE, &mpi);
  check(mpi == bytes, what + ": the MPI counts " + std::to_string(mpi));
  check(nbrcoll::status_bytes(statuses[0]) == static_cast<std::uint64_t>(mpi),
        what + ": nbrcoll reads " + std::to_string(nbrcoll::status_bytes(statuses[0])));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  MPI_Datatype pair = MPI_DATATYPE_NULL;  // a struct of two ints
  const int lengths[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 4};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, lengths, displs, types, &pair);
  MPI_Type_commit(&pair);
  const int to = g_size - 1;  // rank 0 sends to the last rank (itself on one rank)
  for (const int bytes : {0, 8, 64, 4096, 70000, 1 << 20}) {
    for (const bool waitall : {false, true}) {
      one(0, to, bytes, bytes, MPI_BYTE, 1, waitall);
      one(0, to, bytes, bytes + 8 * 1024, MPI_BYTE, 1, waitall);
      one(0, to, bytes, bytes + 8, MPI_INT, 4, waitall);
      one(0, to, bytes, bytes + 64, pair, 8, waitall);
    }
  }
  return finish({pair});
}
