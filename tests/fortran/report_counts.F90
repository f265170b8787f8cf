! The run report (NBRCOLL_REPORT, src/report/) of a Fortran program (use
! mpi): one ring graph per rank, 3 blocking MPI_Neighbor_allgather of 8
! integers and 2 MPI_Ineighbor_alltoall of 8 integers per edge, in flight
! together. tests/fortran/CMakeLists.txt checks the counts in the report:
! each Fortran call once, through nbrcoll's C entry point. Exits 1 on a
! wrong block.
program report_counts
  use mpi
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, rank, nprocs, ring, i, left, right
  integer :: peers(2), requests(2)
  integer :: sendbuf(n), recvbuf(2 * n), sendall(2 * n), recvall(2 * n, 2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  peers = [left, right]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, peers, MPI_UNWEIGHTED, 2, peers, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., ring, ierr)

  do i = 1, 3
    sendbuf = 100 * rank + i
    recvbuf = -1
    call MPI_Neighbor_allgather(sendbuf, n, MPI_INTEGER, recvbuf, n, MPI_INTEGER, ring, ierr)
    if (ierr /= MPI_SUCCESS .or. recvbuf(1) /= 100 * left + i .or. recvbuf(2 * n) /= 100 * right + i) then
      print *, 'rank', rank, ': wrong allgather', i
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do

  sendall = rank
  recvall = -1
  do i = 1, 2
    call MPI_Ineighbor_alltoall(sendall, n, MPI_INTEGER, recvall(:, i), n, MPI_INTEGER, ring, requests(i), ierr)
  end do
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. any(recvall(1, :) /= left) .or. any(recvall(2 * n, :) /= right)) then
    print *, 'rank', rank, ': wrong alltoall'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  call MPI_Comm_free(ring, ierr)
  call MPI_Finalize(ierr)
end program report_counts
