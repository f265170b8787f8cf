! nbrcoll from Fortran. One program, built once per binding: mpif.h
! (NBR_MPIF), use mpi (NBR_USEMPI), use mpi_f08 (NBR_F08); NBR_PERSISTENT where
! the MPI has the persistent neighborhood collectives, NBR_MPIX where those are
! Open MPI's extension (MPIX_Neighbor_*_init, mpi_ext / mpi_f08_ext /
! mpif-ext.h) rather than MPI 4's; NBR_MPICH under MPICH.
!
!   nbr_fortran observe FILE [thread]   the MPI's behaviour at its edges (sentinels,
!                                       argument errors, completion calls on user
!                                       requests), one line each, into FILE.<rank>
!   nbr_fortran compare FILE [thread]   the same, compared line by line with FILE.<rank>
!                                       (written by a run without nbrcoll), then the
!                                       data checks below
!   nbr_fortran full [thread]           the same without the comparison
! "thread": MPI_Init_thread instead of MPI_Init.
!
! The data checks run every neighborhood collective (blocking, nonblocking
! completed by each completion call beside user requests, persistent
! restarted with new data) on a distributed graph with duplicate and self
! edges and MPI_PROC_NULL (MPI_Dist_graph_create_adjacent) and on the same
! edges made by MPI_Dist_graph_create, counts 0 and more, a vector send type,
! alltoallw with byte displacements and a datatype per edge (MPI_INTEGER or
! a derived type of one INTEGER, by turns), and compare every receive area,
! guards around and between the blocks included, with its closed form; then
! the same on Cartesian communicators (MPI_Cart_create of a 2-D grid
! periodic in one dimension, reordered; an MPI_Cart_sub sub-grid; their
! LOGICAL periods read back by MPI_Cart_get), where slot s gets the sender's
! out-edge s+1 or s-1 (MPI-4.1 section 8.6), and on MPI_Graph_create's graph
! with a duplicate edge and self loops. With EXPECT_NBRCOLL=1 every Fortran
! entry point the program uses must lead into libnbrcoll (symbols.c).
#if defined(NBR_F08)
#define T_COMM type(MPI_Comm)
#define T_REQ type(MPI_Request)
#define T_DTYPE type(MPI_Datatype)
#define T_STATUS type(MPI_Status)
#define T_STATUSES(n) type(MPI_Status), dimension(n)
#define ST_SOURCE(s) s%MPI_SOURCE
#define ST_TAG(s) s%MPI_TAG
#define STS_SOURCE(s, k) s(k)%MPI_SOURCE
#define STS_TAG(s, k) s(k)%MPI_TAG
#define BINDING 2
#else
#define T_COMM integer
#define T_REQ integer
#define T_DTYPE integer
#define T_STATUS integer, dimension(MPI_STATUS_SIZE)
#define T_STATUSES(n) integer, dimension(MPI_STATUS_SIZE, n)
#define ST_SOURCE(s) s(MPI_SOURCE)
#define ST_TAG(s) s(MPI_TAG)
#define STS_SOURCE(s, k) s(MPI_SOURCE, k)
#define STS_TAG(s, k) s(MPI_TAG, k)
#define BINDING 1
#endif
! The persistent forms a program calls: MPI 4's, or Open MPI's extension.
#if defined(NBR_MPIX)
#define NEIGHBOR_ALLGATHER_INIT MPIX_Neighbor_allgather_init
#define NEIGHBOR_ALLGATHERV_INIT MPIX_Neighbor_allgatherv_init
#define NEIGHBOR_ALLTOALL_INIT MPIX_Neighbor_alltoall_init
#define NEIGHBOR_ALLTOALLV_INIT MPIX_Neighbor_alltoallv_init
#define NEIGHBOR_ALLTOALLW_INIT MPIX_Neighbor_alltoallw_init
#else
#define NEIGHBOR_ALLGATHER_INIT MPI_Neighbor_allgather_init
#define NEIGHBOR_ALLGATHERV_INIT MPI_Neighbor_allgatherv_init
#define NEIGHBOR_ALLTOALL_INIT MPI_Neighbor_alltoall_init
#define NEIGHBOR_ALLTOALLV_INIT MPI_Neighbor_alltoallv_init
#define NEIGHBOR_ALLTOALLW_INIT MPI_Neighbor_alltoallw_init
#endif

module nbr_fortran_test
#if defined(NBR_F08)
  use mpi_f08
#if defined(NBR_MPIX)
  use mpi_f08_ext
#endif
#elif defined(NBR_USEMPI)
  use mpi
#if defined(NBR_MPIX)
  use mpi_ext
#endif
#endif
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
#if defined(NBR_MPIF)
  include 'mpif.h'
#if defined(NBR_MPIX)
  include 'mpif-ext.h'
#endif
#endif
  interface
    function nbr_check_symbols(binding) bind(C, name='nbr_check_symbols') result(failed)
      import :: c_int
      integer(c_int), value :: binding
      integer(c_int) :: failed
    end function nbr_check_symbols
  end interface

  integer, parameter :: GUARD = -7777, LEAD = 2, TAG_USER = 77, MAXN = 64, MAXBUF = 4096, NMETHODS = 9
  integer :: rank, nprocs, ierr, failures, idx_off, obs_unit, areas, undefined_index, ignored(4)
  T_COMM :: ring
  ! The graph a data check runs on: this process's rank in it, and whether
  ! it is Cartesian (slot s pairs with the sender's out-edge s+1 or s-1).
  integer :: me
  logical :: cart_pairing = .false.

contains

  subroutine main()
    character(len=256) :: mode, path, extra
    character(len=32) :: rank_text
    logical :: thread
    integer :: provided

  failures = 0
  areas = 0
  idx_off = 0
  mode = 'full'
  path = ''
  extra = ''
  if (command_argument_count() >= 1) call get_command_argument(1, mode)
  if (mode /= 'full' .and. command_argument_count() >= 2) call get_command_argument(2, path)
  if (command_argument_count() >= 1) call get_command_argument(command_argument_count(), extra)
  thread = extra == 'thread'

  if (thread) then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  else
    call MPI_Init(ierr)
  end if
  call expect_ok(ierr, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  write (rank_text, '(i0)') rank

  if (mode == 'observe') then
    open (newunit=obs_unit, file=trim(path)//'.'//trim(rank_text), status='replace', action='write')
  else
    open (newunit=obs_unit, status='scratch', action='readwrite')
  end if
  if (thread) call observe('init_thread.provided', [provided])
  call observe_edges()
  if (mode == 'compare') call compare_observations(trim(path)//'.'//trim(rank_text))
  close (obs_unit)

  if (mode /= 'observe') then
    call check_symbols()
    call check_graphs()
  end if

  call MPI_Finalize(ierr)
  call expect_ok(ierr, 'MPI_Finalize')
  if (failures > 0) then
    write (*, '(a,i0,a,i0,a)') 'FAIL: rank ', rank, ': ', failures, ' failed'
    error stop 1
  end if
  if (rank == 0 .and. mode == 'observe') write (*, '(a)') 'PASS observe'
  if (rank == 0 .and. mode /= 'observe') write (*, '(a,a,a,i0,a)') 'PASS ', trim(mode), ' (rank 0: ', areas, &
                                                                   ' receive areas checked)'
  end subroutine main

  ! ---- bookkeeping -----------------------------------------------------------

  subroutine fail(what)
    character(len=*), intent(in) :: what
    failures = failures + 1
    if (failures <= 20) write (*, '(a,i0,a,a)') 'FAIL: rank ', rank, ': ', what
  end subroutine fail

  subroutine expect_ok(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    character(len=24) :: text
    if (code /= MPI_SUCCESS) then
      write (text, '(i0)') code
      call fail(what//' returned error '//trim(text))
    end if
  end subroutine expect_ok

  integer function error_class(code)
    integer, intent(in) :: code
    integer :: e
    call MPI_Error_class(code, error_class, e)
  end function error_class

  integer function l2i(v)
    logical, intent(in) :: v
    l2i = merge(1, 0, v)
  end function l2i

  subroutine observe(key, values)
    character(len=*), intent(in) :: key
    integer, intent(in) :: values(:)
    write (obs_unit, '(a,*(1x,i0))') key, values
  end subroutine observe

  ! This run's observations (obs_unit) against those of the run without nbrcoll.
  subroutine compare_observations(reference)
    character(len=*), intent(in) :: reference
    character(len=512) :: want, got
    integer :: u, a, b, line
    open (newunit=u, file=reference, status='old', action='read', iostat=a)
    if (a /= 0) then
      call fail('no reference observations '//reference)
      return
    end if
    rewind (obs_unit)
    line = 0
    do
      read (u, '(a)', iostat=a) want
      read (obs_unit, '(a)', iostat=b) got
      if (a /= 0 .or. b /= 0) exit
      line = line + 1
      if (want /= got) call fail('observed "'//trim(got)//'", without nbrcoll "'//trim(want)//'"')
    end do
    if (a == 0 .or. b == 0) call fail('the observations and '//reference//' differ in length')
    close (u)
    if (line < 30) call fail('fewer observations than expected in '//reference)
  end subroutine compare_observations

  subroutine check_symbols()
    character(len=8) :: expect
    integer :: n
    call get_environment_variable('EXPECT_NBRCOLL', expect)
    if (expect /= '1') return
    n = nbr_check_symbols(int(BINDING, c_int))
    if (n /= 0) call fail('Fortran entry points that do not lead into libnbrcoll (see above)')
  end subroutine check_symbols

  ! ---- the graphs: lists every rank can compute for every rank ------------------

  ! Rank q sends to: q+1 twice (duplicate edge), MPI_PROC_NULL, itself, q-1.
  subroutine dests_of(q, list, n, with_null)
    integer, intent(in) :: q
    integer, intent(out) :: list(MAXN), n
    logical, intent(in) :: with_null
    n = 0
    call push(list, n, mod(q + 1, nprocs))
    call push(list, n, mod(q + 1, nprocs))
    if (with_null) call push(list, n, MPI_PROC_NULL)
    call push(list, n, q)
    call push(list, n, mod(q + nprocs - 1, nprocs))
  end subroutine dests_of

  ! Rank j receives from every q that sends to it (q from the highest down,
  ! each q as often as it names j), with MPI_PROC_NULL second and last.
  subroutine sources_of(j, list, n, with_null)
    integer, intent(in) :: j
    integer, intent(out) :: list(MAXN), n
    logical, intent(in) :: with_null
    integer :: q, k, d(MAXN), nd
    n = 0
    do q = nprocs - 1, 0, -1
      call dests_of(q, d, nd, .false.)
      do k = 1, nd
        if (d(k) == j) call push(list, n, q)
        if (with_null .and. n == 1 .and. d(k) == j) call push(list, n, MPI_PROC_NULL)
      end do
    end do
    if (with_null) call push(list, n, MPI_PROC_NULL)
  end subroutine sources_of

  subroutine push(list, n, v)
    integer, intent(inout) :: list(MAXN), n
    integer, intent(in) :: v
    n = n + 1
    list(n) = v
  end subroutine push

  ! ---- the MPI's behaviour at its edges ------------------------------------------

  subroutine observe_edges()
    integer :: src(1), dst(1), indeg, outdeg, sw(MAXN), dw(MAXN), srcs(MAXN), dsts(MAXN), n, w(1)
    logical :: weighted
    T_COMM :: g

    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    ! A ring, unweighted: the graph most other observations use.
    src(1) = mod(rank + nprocs - 1, nprocs)
    dst(1) = mod(rank + 1, nprocs)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., ring, ierr)
    call expect_ok(ierr, 'ring creation')
    call MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN, ierr)
    call MPI_Dist_graph_neighbors_count(ring, indeg, outdeg, weighted, ierr)
    call observe('ring.unweighted', [l2i(weighted), indeg, outdeg])

    ! Weighted ring: the weights must arrive as given.
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, [10 + rank], 1, dst, [20 + rank], &
                                        MPI_INFO_NULL, .false., g, ierr)
    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    sw = -1
    dw = -1
    call MPI_Dist_graph_neighbors(g, MAXN, srcs, sw, MAXN, dsts, dw, ierr)
    call observe('ring.weighted', [ierr, l2i(weighted), indeg, outdeg, srcs(1), sw(1), dsts(1), dw(1)])
    call MPI_Comm_free(g, ierr)

    ! No edges at all, MPI_WEIGHTS_EMPTY on every rank.
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_WEIGHTS_EMPTY, 0, dst, MPI_WEIGHTS_EMPTY, &
                                        MPI_INFO_NULL, .false., g, ierr)
    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call observe('empty.weights_empty', [ierr, l2i(weighted), indeg, outdeg])
    call MPI_Comm_free(g, ierr)

    ! MPI_Dist_graph_create, unweighted, reorder .true.
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [1], dst, MPI_UNWEIGHTED, MPI_INFO_NULL, .true., g, ierr)
    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call observe('create.unweighted', [ierr, l2i(weighted), indeg, outdeg])
    call MPI_Comm_free(g, ierr)

    ! MPI_Dist_graph_create, weighted; odd ranks name no edge (MPI_WEIGHTS_EMPTY).
    n = 1 - mod(rank, 2)
    w(1) = 5 + rank
    if (n == 1) then
      call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [1], dst, w, MPI_INFO_NULL, .false., g, ierr)
    else
      call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, [rank], [0], dst, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., &
                                 g, ierr)
    end if
    ! (Its weights are not asked for: MPICH 4.0.2's own MPI_Dist_graph_neighbors
    ! crashes on this graph.)
    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call observe('create.weighted', [ierr, l2i(weighted), indeg, outdeg])
    call MPI_Comm_free(g, ierr)

    call observe_argument_errors()
    call observe_user_requests()
    call observe_active_collective()
    call observe_bottom()
    ! A binding that did not recognise MPI_STATUS(ES)_IGNORE would have
    ! written a status into the object itself.
    ignored = ignore_objects()
    call observe('ignore_objects', ignored)
  end subroutine observe_edges

  function ignore_objects() result(v)
    integer :: v(4)
    v = [ST_SOURCE(MPI_STATUS_IGNORE), ST_TAG(MPI_STATUS_IGNORE), STS_SOURCE(MPI_STATUSES_IGNORE, 1), &
         STS_TAG(MPI_STATUSES_IGNORE, 1)]
  end function ignore_objects

  subroutine observe_argument_errors()
    integer :: sb(4), rb(4), counts(1), displs(1), src(1), dst(1)
    integer(kind=MPI_ADDRESS_KIND) :: bytes(1)
    T_REQ :: r, rs(2)
    T_COMM :: g
    T_STATUSES(2) :: sts

    sb = rank
    rb = GUARD
    call MPI_Neighbor_allgather(sb, -1, MPI_INTEGER, rb, 1, MPI_INTEGER, ring, ierr)
    call observe('error.negative_count', [error_class(ierr), rb(1)])
    ! MPI_IN_PLACE is no valid send buffer of a neighborhood collective: each
    ! MPI's own answer (Open MPI an error, MPICH's bindings pass it on as a buffer).
    call MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, ring, ierr)
    call observe('error.in_place', [error_class(ierr)])
    counts = -2
    displs = 0
    call MPI_Neighbor_alltoallv(sb, counts, displs, MPI_INTEGER, rb, [1], displs, MPI_INTEGER, ring, ierr)
    call observe('error.alltoallv_count', [error_class(ierr)])
    call MPI_Neighbor_alltoall(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INTEGER, ring, ierr)
    call observe('error.type_null', [error_class(ierr)])
    bytes = 0
    call MPI_Neighbor_alltoallw(sb, [1], bytes, [MPI_DATATYPE_NULL], rb, [1], bytes, [MPI_INTEGER], ring, ierr)
    call observe('error.alltoallw_type_null', [error_class(ierr)])
    r = MPI_REQUEST_NULL
    call MPI_Ineighbor_allgather(sb, 1, MPI_INTEGER, rb, 1, MPI_DATATYPE_NULL, ring, r, ierr)
    call observe('error.ineighbor_type_null', [error_class(ierr), l2i(r == MPI_REQUEST_NULL)])
    rs = MPI_REQUEST_NULL
    call MPI_Waitall(-1, rs, sts, ierr)
    call observe('error.waitall_negative', [error_class(ierr)])
    g = MPI_COMM_WORLD
    src(1) = 0
    dst(1) = 0
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., g, ierr)
    call observe('error.create_negative', [error_class(ierr), l2i(g == MPI_COMM_WORLD)])
    ! A grid larger than the world; MPI_Cart_sub of a communicator that is not Cartesian.
    g = MPI_COMM_WORLD
    call MPI_Cart_create(MPI_COMM_WORLD, 1, [nprocs + 1], [.true.], .false., g, ierr)
    call observe('error.cart_too_big', [error_class(ierr), l2i(g == MPI_COMM_WORLD)])
#if !(defined(NBR_F08) && defined(NBR_MPICH))
    ! (Not under MPICH's use mpi_f08: its own MPI_Cart_sub crashes here, tests/fortran/CMakeLists.txt.)
    g = MPI_COMM_WORLD
    call MPI_Cart_sub(ring, [.true.], g, ierr)
    call observe('error.cart_sub_of_graph', [error_class(ierr), l2i(g == MPI_COMM_WORLD)])
#endif
  end subroutine observe_argument_errors

  ! Completion calls on the application's own requests: indices, flags,
  ! statuses, the ignore sentinels, counts of 0.
  subroutine observe_user_requests()
    T_REQ :: r(3)
    T_STATUS :: st
    T_STATUSES(3) :: sts
    integer :: idx, outc, ids(3), b(3), v, k, cls
    logical :: flag

    v = 100 + rank
    r(1) = MPI_REQUEST_NULL
    call self_message(b(2), r(2), v, 0)
    call MPI_Waitany(2, r, idx, st, ierr)
    call observe('waitany.second', [ierr, idx, ST_SOURCE(st) - rank, ST_TAG(st), b(2) - v, l2i(r(2) == MPI_REQUEST_NULL)])
    ! Where the MPI numbers requests from 0 here (MPICH 4.0's use mpi_f08),
    ! the data checks below do too.
    idx_off = 2 - idx
    call MPI_Waitany(2, r, idx, st, ierr)
    call observe('waitany.all_null', [ierr, idx, ST_SOURCE(st), ST_TAG(st)])
    ! MPI_UNDEFINED, or what this binding makes of it (MPICH 4.0's mpif.h: MPI_UNDEFINED + 1).
    undefined_index = idx
    call MPI_Waitany(0, r, idx, st, ierr)
    call observe('waitany.count0', [ierr, idx, ST_SOURCE(st), ST_TAG(st)])
    flag = .false.
    call MPI_Testany(0, r, idx, flag, st, ierr)
    call observe('testany.count0', [ierr, idx, transfer(flag, 0)])
    flag = .false.
    call MPI_Testall(0, r, flag, sts, ierr)
    call observe('testall.count0', [ierr, transfer(flag, 0)])
    call MPI_Waitall(0, r, sts, ierr)
    call observe('waitall.count0', [ierr])
    call MPI_Waitsome(0, r, outc, ids, sts, ierr)
    call observe('waitsome.count0', [ierr, outc])
    call MPI_Testsome(0, r, outc, ids, sts, ierr)
    call observe('testsome.count0', [ierr, outc])

    ! Two receives around a null request, both satisfied.
    do k = 1, 2
      call self_message(b(1), r(1), v, 0)
      r(2) = MPI_REQUEST_NULL
      call self_message(b(3), r(3), v + 1, 1)
      call MPI_Wait(r(1), MPI_STATUS_IGNORE, ierr)  ! first done: the other comes next
      flag = until_complete(r(3), st, .false.)
      if (k == 1) then
        call MPI_Waitsome(3, r, outc, ids, sts, ierr)
      else
        outc = 0
        do while (outc == 0)
          call MPI_Testsome(3, r, outc, ids, sts, ierr)
        end do
      end if
      call observe('some.'//merge('wait', 'test', k == 1), [ierr, outc, ids(1), STS_SOURCE(sts, 1) - rank, &
                   STS_TAG(sts, 1), b(3) - v, l2i(r(3) == MPI_REQUEST_NULL)])
    end do

    ! MPI_Test on a completed request, on a null one.
    call self_message(b(1), r(1), v, 0)
    flag = until_complete(r(1), st, .true.)
    call observe('test.done', [ierr, transfer(flag, 0), ST_SOURCE(st) - rank, ST_TAG(st), &
                 l2i(r(1) == MPI_REQUEST_NULL)])
    call MPI_Test(r(1), flag, st, ierr)
    call observe('test.null', [ierr, transfer(flag, 0), ST_SOURCE(st), ST_TAG(st)])

    ! MPI_Request_get_status with MPI_STATUS_IGNORE on a completed request.
    call self_message(b(1), r(1), v, 0)
    flag = until_complete(r(1), st, .false.)
    call MPI_Request_get_status(r(1), flag, MPI_STATUS_IGNORE, ierr)
    call observe('get_status.ignore', [ierr, transfer(flag, 0), l2i(r(1) == MPI_REQUEST_NULL)])
    call MPI_Wait(r(1), st, ierr)
    call observe('wait.after_get_status', [ierr, ST_SOURCE(st) - rank, ST_TAG(st)])

    ! MPI_Testall over a completed request and a null one, MPI_STATUSES_IGNORE.
    call self_message(b(1), r(1), v, 0)
    r(2) = MPI_REQUEST_NULL
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, r, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    call observe('testall.done', [ierr, transfer(flag, 0), l2i(r(1) == MPI_REQUEST_NULL)])

    ! MPI_Cancel of a receive nobody sends to, then its status.
    call MPI_Irecv(b(1), 1, MPI_INTEGER, rank, TAG_USER + 9, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Cancel(r(1), ierr)
    cls = error_class(ierr)
    call MPI_Wait(r(1), st, ierr)
    call MPI_Test_cancelled(st, flag, ierr)
    call observe('cancel.receive', [cls, ierr, transfer(flag, 0), l2i(r(1) == MPI_REQUEST_NULL)])

    ! MPI_Request_free of an inactive persistent request; MPI_Startall and MPI_Waitall of two.
    call MPI_Recv_init(b(1), 1, MPI_INTEGER, rank, TAG_USER, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Send_init(v, 1, MPI_INTEGER, rank, TAG_USER, MPI_COMM_WORLD, r(2), ierr)
    call MPI_Startall(2, r, ierr)
    call MPI_Waitall(2, r, sts, ierr)
    call observe('persistent.waitall', [ierr, STS_SOURCE(sts, 1) - rank, STS_TAG(sts, 1), b(1) - v, &
                 l2i(r(1) == MPI_REQUEST_NULL)])
    call MPI_Start(r(1), ierr)
    call MPI_Start(r(2), ierr)
    call MPI_Waitall(2, r, MPI_STATUSES_IGNORE, ierr)
    call MPI_Request_free(r(1), ierr)
    call MPI_Request_free(r(2), ierr)
    call observe('persistent.free', [ierr, l2i(r(1) == MPI_REQUEST_NULL), l2i(r(2) == MPI_REQUEST_NULL)])
  end subroutine observe_user_requests

  ! A receive from this rank into b, satisfied at once (value v, tag TAG_USER + t).
  subroutine self_message(b, r, v, t)
    integer, intent(inout) :: b
    T_REQ, intent(out) :: r
    integer, intent(in) :: v, t
    call MPI_Irecv(b, 1, MPI_INTEGER, rank, TAG_USER + t, MPI_COMM_WORLD, r, ierr)
    call MPI_Send(v, 1, MPI_INTEGER, rank, TAG_USER + t, MPI_COMM_WORLD, ierr)
  end subroutine self_message

  ! Until r is complete, asking MPI_Test (test) or MPI_Request_get_status.
  logical function until_complete(r, st, test) result(flag)
    T_REQ, intent(inout) :: r
    T_STATUS, intent(inout) :: st
    logical, intent(in) :: test
    flag = .false.
    do while (.not. flag)
      if (test) then
        call MPI_Test(r, flag, st, ierr)
      else
        call MPI_Request_get_status(r, flag, st, ierr)
      end if
    end do
  end function until_complete

  ! MPI_Cancel and MPI_Request_free of an active neighborhood collective are
  ! erroneous: the same answer as the MPI's for its own, and it still
  ! completes. Odd ranks start theirs only after the barrier, so an even
  ! rank whose source is odd holds a call that cannot have completed.
  subroutine observe_active_collective()
    integer :: sb(1), rb(1), cls(2)
    T_REQ :: r
    logical :: still(2), held
    sb = rank
    rb = GUARD
    held = mod(rank, 2) == 0 .and. mod(rank + nprocs - 1, nprocs) /= rank .and. mod(rank + nprocs - 1, 2) == 1
    cls = -1
    still = .false.
    if (mod(rank, 2) == 1) call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Ineighbor_allgather(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, ring, r, ierr)
    if (held) then
      call MPI_Cancel(r, ierr)
      cls(1) = error_class(ierr)
      still(1) = r /= MPI_REQUEST_NULL
      call MPI_Request_free(r, ierr)
      cls(2) = error_class(ierr)
      still(2) = r /= MPI_REQUEST_NULL
    end if
    if (mod(rank, 2) == 0) call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (r /= MPI_REQUEST_NULL) call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
    call observe('active.cancel_free', [cls, l2i(still(1)), l2i(still(2)), rb(1) - mod(rank + nprocs - 1, nprocs)])
  end subroutine observe_active_collective

  ! MPI_BOTTOM with absolute-address datatypes on both sides.
  subroutine observe_bottom()
    integer :: sb(2), rb(4)
    integer(kind=MPI_ADDRESS_KIND) :: at(1), sat(1), rat(1)
    T_DTYPE :: stype, rtype
    sb = [rank, 1000 + rank]
    rb = GUARD
    call MPI_Get_address(sb(1), at(1), ierr)
    call MPI_Type_create_hindexed(1, [2], at, MPI_INTEGER, stype, ierr)
    call MPI_Get_address(rb(2), at(1), ierr)
    call MPI_Type_create_hindexed(1, [2], at, MPI_INTEGER, rtype, ierr)
    call MPI_Type_commit(stype, ierr)
    call MPI_Type_commit(rtype, ierr)
    call MPI_Neighbor_allgather(MPI_BOTTOM, 1, stype, MPI_BOTTOM, 1, rtype, ring, ierr)
    call observe('bottom.allgather', [ierr, rb])
    call MPI_Type_free(stype, ierr)
    call MPI_Type_free(rtype, ierr)
    ! Alltoallw: plain types, the displacements absolute addresses.
    rb = GUARD
    call MPI_Get_address(sb(1), sat(1), ierr)
    call MPI_Get_address(rb(3), rat(1), ierr)
    call MPI_Neighbor_alltoallw(MPI_BOTTOM, [2], sat, [MPI_INTEGER], MPI_BOTTOM, [2], rat, [MPI_INTEGER], ring, ierr)
    call observe('bottom.alltoallw', [ierr, rb])
  end subroutine observe_bottom

  ! ---- data checks ---------------------------------------------------------------

  subroutine check_graphs()
    T_COMM :: g
    integer :: srcs(MAXN), dsts(MAXN), ns, nd, degrees(1)
    ! Duplicate and self edges, MPI_PROC_NULL on both sides.
    call sources_of(rank, srcs, ns, .true.)
    call dests_of(rank, dsts, nd, .true.)
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, srcs, MPI_UNWEIGHTED, nd, dsts, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., g, ierr)
    call expect_ok(ierr, 'MPI_Dist_graph_create_adjacent')
    call check_graph(g, 'adjacent', srcs, ns, dsts, nd)
    call MPI_Comm_free(g, ierr)
    ! The same edges but MPI_PROC_NULL, each rank naming its own out-edges;
    ! the MPI orders the neighbours.
    call dests_of(rank, dsts, nd, .false.)
    degrees(1) = nd
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], degrees, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, .false., &
                               g, ierr)
    call expect_ok(ierr, 'MPI_Dist_graph_create')
    call check_graph(g, 'create', srcs, -1, dsts, -1)
    call MPI_Comm_free(g, ierr)
    call check_topologies()
    if (any(ignore_objects() /= ignored)) call fail('MPI_STATUS(ES)_IGNORE were written to')
  end subroutine check_graphs

  ! Cartesian and graph communicators (see the head of this file).
  subroutine check_topologies()
    T_COMM :: g, grid
    integer :: dims(3), lists(MAXN), n, indx(MAXN), edges(MAXN), q, k
    logical :: periods(3), keep(3)
    dims = 0
    call MPI_Dims_create(nprocs, 2, dims, ierr)
    periods = [.true., .false., .false.]
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., g, ierr)
    call expect_ok(ierr, 'MPI_Cart_create')
    call check_cart(g, 'cart 2-D', dims, periods)
    call MPI_Comm_free(g, ierr)
    ! Dimensions 1 and 3 of a 3-D grid, both periodic.
    dims = 0
    call MPI_Dims_create(nprocs, 3, dims, ierr)
    periods = [.true., .false., .true.]
    call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .false., grid, ierr)
    keep = [.true., .false., .true.]
    call MPI_Cart_sub(grid, keep, g, ierr)
    call expect_ok(ierr, 'MPI_Cart_sub')
    call check_cart(g, 'cart sub-grid', [dims(1), dims(3), 0], [.true., .true., .false.])
    call MPI_Comm_free(g, ierr)
    call MPI_Comm_free(grid, ierr)
    ! MPI_Graph_create: a ring, each rank and its partner (rank xor 1) once
    ! more, a self loop on even ranks.
    n = 0
    do q = 0, nprocs - 1
      call graph_neighbours(q, lists, k)
      edges(n + 1:n + k) = lists(1:k)
      n = n + k
      indx(q + 1) = n
    end do
    call MPI_Graph_create(MPI_COMM_WORLD, nprocs, indx, edges, .false., g, ierr)
    call expect_ok(ierr, 'MPI_Graph_create')
    call MPI_Graph_neighbors_count(g, rank, k, ierr)
    call MPI_Graph_neighbors(g, rank, MAXN, edges, ierr)
    call graph_neighbours(rank, lists, n)
    if (k /= n .or. any(edges(1:k) /= lists(1:n))) call fail('MPI_Graph_create: neighbours differ from those given')
    me = rank
    call run_all(g, 'graph', lists, n, lists, n)
  end subroutine check_topologies

  subroutine graph_neighbours(q, list, n)
    integer, intent(in) :: q
    integer, intent(out) :: list(MAXN), n
    n = 0
    if (ieor(q, 1) < nprocs) call push(list, n, ieor(q, 1))
    call push(list, n, mod(q + 1, nprocs))
    if (mod(q, 2) == 0) call push(list, n, q)
    call push(list, n, mod(q + nprocs - 1, nprocs))
  end subroutine graph_neighbours

  ! A Cartesian communicator made with these dims and periods: its periods as
  ! the MPI reads them back, its lists from MPI_Cart_shift, every collective.
  subroutine check_cart(g, label, dims, periods)
    T_COMM, intent(in) :: g
    character(len=*), intent(in) :: label
    integer, intent(in) :: dims(3)
    logical, intent(in) :: periods(3)
    integer :: ndims, d, lists(MAXN), n, got_dims(3), coords(3)
    logical :: got_periods(3)
    call MPI_Cartdim_get(g, ndims, ierr)
    if (ndims /= 2) call fail(label//': not 2 dimensions')
    call MPI_Cart_get(g, 2, got_dims, got_periods, coords, ierr)
    if (any(got_dims(1:2) /= dims(1:2)) .or. any(got_periods(1:2) .neqv. periods(1:2))) &
      call fail(label//': MPI_Cart_get reads back other dims or periods')
    n = 0
    do d = 0, ndims - 1
      call MPI_Cart_shift(g, d, 1, lists(n + 1), lists(n + 2), ierr)
      n = n + 2
    end do
    call MPI_Comm_rank(g, me, ierr)
    cart_pairing = .true.
    call run_all(g, label, lists, n, lists, n)
    cart_pairing = .false.
  end subroutine check_cart

  ! Every collective on g. given_*: the lists this rank gave (n < 0: the MPI chose the order).
  subroutine check_graph(g, label, given_srcs, given_ns, given_dsts, given_nd)
    T_COMM, intent(in) :: g
    character(len=*), intent(in) :: label
    integer, intent(in) :: given_srcs(MAXN), given_ns, given_dsts(MAXN), given_nd
    integer :: srcs(MAXN), dsts(MAXN), sw(MAXN), dw(MAXN), indeg, outdeg
    logical :: weighted

    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    call MPI_Dist_graph_neighbors(g, MAXN, srcs, sw, MAXN, dsts, dw, ierr)
    if (given_ns >= 0) then
      if (indeg /= given_ns .or. outdeg /= given_nd) call fail(label//': degrees differ from those given')
      if (any(srcs(1:indeg) /= given_srcs(1:indeg)) .or. any(dsts(1:outdeg) /= given_dsts(1:outdeg))) &
        call fail(label//': neighbour lists differ from those given')
    end if
    if (weighted) call fail(label//': MPI_UNWEIGHTED made a weighted graph')
    me = rank
    call run_all(g, label, srcs, indeg, dsts, outdeg)
  end subroutine check_graph

  ! Every collective on g, whose lists on this rank (me) are srcs and dsts.
  subroutine run_all(g, label, srcs, indeg, dsts, outdeg)
    T_COMM, intent(in) :: g
    character(len=*), intent(in) :: label
    integer, intent(in) :: srcs(MAXN), indeg, dsts(MAXN), outdeg
    integer :: kind, method, outdegs(0:MAXN), alldsts(MAXN, 0:MAXN), displs(0:MAXN), q, last_kind, topo
    character(len=64) :: what

    ! Every rank's destinations, for the closed forms.
    call MPI_Allgather(outdeg, 1, MPI_INTEGER, outdegs, 1, MPI_INTEGER, g, ierr)
    displs(0) = 0
    do q = 1, nprocs - 1
      displs(q) = displs(q - 1) + MAXN
    end do
    call MPI_Allgatherv(dsts, outdeg, MPI_INTEGER, alldsts, outdegs, displs, MPI_INTEGER, g, ierr)

    last_kind = 5
    topo = MPI_DIST_GRAPH
#if defined(NBR_F08) && defined(NBR_MPICH)
    ! MPICH 4.0.2's own use mpi_f08 MPI_Neighbor_alltoallw sizes its datatype
    ! arrays with MPI_Dist_graph_neighbors_count, which fails on Cartesian and
    ! graph communicators (without nbrcoll it aborts there; with
    ! MPI_ERRORS_RETURN it copies with a wrong degree and crashes): alltoallw
    ! only on distributed graphs under that binding.
    call MPI_Topo_test(g, topo, ierr)
#endif
    if (topo /= MPI_DIST_GRAPH) last_kind = 4
    do kind = 1, last_kind
      write (what, '(a,a,i0)') label, ' kind ', kind
      call run_case(g, kind, 0, 0, 3, .false., srcs, indeg, dsts, outdeg, outdegs, alldsts, trim(what)//' blocking')
      if (kind == 1 .or. kind == 3) then
        call run_case(g, kind, 0, 0, 0, .false., srcs, indeg, dsts, outdeg, outdegs, alldsts, &
                      trim(what)//' count 0')
        call run_case(g, kind, 0, 0, 2, .true., srcs, indeg, dsts, outdeg, outdegs, alldsts, &
                      trim(what)//' vector type')
      end if
      do method = 1, NMETHODS
        call run_case(g, kind, 1, method, 3, .false., srcs, indeg, dsts, outdeg, outdegs, alldsts, &
                      trim(what)//' nonblocking')
      end do
#if defined(NBR_PERSISTENT)
      do method = 1, NMETHODS, 2
        call run_case(g, kind, 2, method, 3, .false., srcs, indeg, dsts, outdeg, outdegs, alldsts, &
                      trim(what)//' persistent')
      end do
#endif
    end do
  end subroutine run_all

  ! What rank q sends to its d-th destination (d = 0: allgather, the same to all).
  integer function value_of(q, d, e, round)
    integer, intent(in) :: q, d, e, round
    value_of = 1000000 * round + 10000 * q + 100 * d + e
  end function value_of

  ! The v collectives' count from q to its d-th destination (0 for some).
  integer function vcount(q, d)
    integer, intent(in) :: q, d
    vcount = mod(q + d, 3)
  end function vcount

  ! kind 1..5: allgather, allgatherv, alltoall, alltoallv, alltoallw; how 0
  ! blocking, 1 nonblocking, 2 persistent (started twice); c: the fixed count.
  ! Alltoallw places its blocks as alltoallv does, in bytes, each edge's
  ! type MPI_INTEGER or a contiguous type of one INTEGER by turns.
  subroutine run_case(g, kind, how, method, c, vector, srcs, indeg, dsts, outdeg, outdegs, alldsts, what)
    T_COMM, intent(in) :: g
    integer, intent(in) :: kind, how, method, c, srcs(MAXN), indeg, dsts(MAXN), outdeg, outdegs(0:MAXN), &
                           alldsts(MAXN, 0:MAXN)
    logical, intent(in) :: vector
    character(len=*), intent(in) :: what
    integer :: sb(MAXBUF), rb(MAXBUF), expected(MAXBUF), scounts(MAXN), sdispls(MAXN), rcounts(MAXN), &
               rdispls(MAXN), s, d, e, q, k, pos, round, rounds, n, own, user(2), before
    integer(kind=MPI_ADDRESS_KIND) :: wsdispls(MAXN), wrdispls(MAXN)
    T_DTYPE :: stype, one_int, stypes(MAXN), rtypes(MAXN)
    T_REQ :: reqs(3)
    logical :: keep(3)

    before = failures
    stype = MPI_INTEGER
    if (vector) then
      call MPI_Type_vector(c, 1, 2, MPI_INTEGER, stype, ierr)
      call MPI_Type_commit(stype, ierr)
    end if
    if (kind == 5) then
      call MPI_Type_contiguous(1, MPI_INTEGER, one_int, ierr)
      call MPI_Type_commit(one_int, ierr)
    end if
    ! Send counts and places (v: from the end backwards, a gap after each).
    own = merge(vcount(me, 0), c, kind == 2)
    pos = 0
    do d = outdeg, 1, -1
      scounts(d) = own
      if (kind >= 4) scounts(d) = vcount(me, d)
      sdispls(d) = pos
      pos = pos + scounts(d) + 1
    end do
    ! Receive counts, places and the closed form of the whole area.
    pos = 0
    do s = indeg, 1, -1
      q = srcs(s)
      d = 0
      if (q /= MPI_PROC_NULL) d = partner(s)
      rcounts(s) = c
      if (kind == 2) rcounts(s) = merge(2, vcount(q, 0), q == MPI_PROC_NULL)
      if (kind >= 4) rcounts(s) = merge(2, vcount(q, d), q == MPI_PROC_NULL)
      rdispls(s) = pos
      pos = pos + rcounts(s) + 1
    end do
    if (kind == 5) then
      do d = 1, outdeg
        wsdispls(d) = int(sdispls(d), MPI_ADDRESS_KIND) * (storage_size(d) / 8)
        stypes(d) = MPI_INTEGER
        if (mod(d, 2) == 0) stypes(d) = one_int
      end do
      do s = 1, indeg
        wrdispls(s) = int(rdispls(s), MPI_ADDRESS_KIND) * (storage_size(s) / 8)
        rtypes(s) = MPI_INTEGER
        if (mod(s, 2) == 1) rtypes(s) = one_int
      end do
    end if
    if (kind == 1 .or. kind == 3) then
      do s = 1, indeg
        rdispls(s) = (s - 1) * c
      end do
    end if
    n = LEAD + max(pos, indeg * c) + LEAD

    rounds = merge(2, 1, how == 2)
    reqs = MPI_REQUEST_NULL
    do round = 1, rounds
      call fill_send(round)
      rb = GUARD
      expected = GUARD
      do s = 1, indeg
        q = srcs(s)
        if (q == MPI_PROC_NULL) cycle
        d = partner(s)
        do e = 1, rcounts(s)
          expected(LEAD + rdispls(s) + e) = value_of(q, merge(0, d, kind <= 2), e, round)
        end do
      end do
      if (how == 0) then
        call blocking()
      else
        if (how == 1 .or. round == 1) call start_nonblocking(reqs(2))
        if (how == 2) then
          if (round == 1) call MPI_Start(reqs(2), ierr)
          if (round == 2) call MPI_Startall(1, reqs(2:2), ierr)
          call expect_ok(ierr, what//': MPI_Start(all)')
        end if
        ! The application's own traffic beside it.
        call MPI_Irecv(user(1), 1, MPI_INTEGER, rank, TAG_USER, MPI_COMM_WORLD, reqs(1), ierr)
        user(2) = 4242 + rank
        call MPI_Isend(user(2), 1, MPI_INTEGER, rank, TAG_USER, MPI_COMM_WORLD, reqs(3), ierr)
        keep = [.false., how == 2, .false.]
        call complete(reqs, keep, method, what)
        if (user(1) /= user(2)) call fail(what//': the user message came wrong')
      end if
      areas = areas + 1
      if (any(rb(1:n) /= expected(1:n))) call report(what, round)
    end do
    if (how == 2) then
      call MPI_Request_free(reqs(2), ierr)
      call expect_ok(ierr, what//': MPI_Request_free')
      if (reqs(2) /= MPI_REQUEST_NULL) call fail(what//': MPI_Request_free left the request')
    end if
    if (vector) call MPI_Type_free(stype, ierr)
    if (kind == 5) call MPI_Type_free(one_int, ierr)
    ! Requests may be left active and ranks out of step: stop every rank now.
    if (failures > before) then
      write (*, '(a,i0,a)') 'FAIL: rank ', rank, ': stopping at the first failed case'
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if

  contains

    ! The destination index of q (= srcs(s)) that pairs with slot s: the
    ! o-th time q names this rank, o = how often q appears in srcs(1:s);
    ! on a Cartesian communicator the other slot of its dimension.
    integer function partner(s)
      integer, intent(in) :: s
      integer :: j, from, o
      if (cart_pairing) then
        partner = merge(s + 1, s - 1, mod(s, 2) == 1)
        return
      end if
      from = srcs(s)
      o = count(srcs(1:s) == from)
      partner = 0
      do j = 1, outdegs(from)
        if (alldsts(j, from) == me) o = o - 1
        if (o == 0) then
          partner = j
          return
        end if
      end do
      call fail(what//': no partner edge')
    end function partner

    subroutine fill_send(round)
      integer, intent(in) :: round
      sb = -1
      if (kind == 1 .or. kind == 2) then
        do e = 1, own
          k = merge(2 * e - 1, e, vector)
          sb(k) = value_of(me, 0, e, round)
        end do
      else
        ! (the vector type's extent is 2c - 1 INTEGERs)
        do d = 1, outdeg
          do e = 1, scounts(d)
            k = merge((d - 1) * (2 * c - 1) + 2 * e - 1, merge((d - 1) * c + e, sdispls(d) + e, kind == 3), vector)
            sb(k) = value_of(me, d, e, round)
          end do
        end do
      end if
    end subroutine fill_send

    subroutine blocking()
      integer :: one
      one = merge(1, c, vector)
      select case (kind)
      case (1)
        call MPI_Neighbor_allgather(sb, one, stype, rb(LEAD + 1), c, MPI_INTEGER, g, ierr)
      case (2)
        call MPI_Neighbor_allgatherv(sb, own, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, MPI_INTEGER, g, ierr)
      case (3)
        call MPI_Neighbor_alltoall(sb, one, stype, rb(LEAD + 1), c, MPI_INTEGER, g, ierr)
      case (4)
        call MPI_Neighbor_alltoallv(sb, scounts, sdispls, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, MPI_INTEGER, &
                                    g, ierr)
      case (5)
        call MPI_Neighbor_alltoallw(sb, scounts, wsdispls, stypes, rb(LEAD + 1), rcounts, wrdispls, rtypes, g, ierr)
      end select
      call expect_ok(ierr, what)
    end subroutine blocking

    subroutine start_nonblocking(r)
      T_REQ, intent(inout) :: r
      select case (kind + 5 * (how - 1))
      case (1)
        call MPI_Ineighbor_allgather(sb, c, MPI_INTEGER, rb(LEAD + 1), c, MPI_INTEGER, g, r, ierr)
      case (2)
        call MPI_Ineighbor_allgatherv(sb, own, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, MPI_INTEGER, g, r, ierr)
      case (3)
        call MPI_Ineighbor_alltoall(sb, c, MPI_INTEGER, rb(LEAD + 1), c, MPI_INTEGER, g, r, ierr)
      case (4)
        call MPI_Ineighbor_alltoallv(sb, scounts, sdispls, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, MPI_INTEGER, &
                                     g, r, ierr)
      case (5)
        call MPI_Ineighbor_alltoallw(sb, scounts, wsdispls, stypes, rb(LEAD + 1), rcounts, wrdispls, rtypes, g, r, ierr)
#if defined(NBR_PERSISTENT)
      case (6)
        call NEIGHBOR_ALLGATHER_INIT(sb, c, MPI_INTEGER, rb(LEAD + 1), c, MPI_INTEGER, g, MPI_INFO_NULL, r, ierr)
      case (7)
        call NEIGHBOR_ALLGATHERV_INIT(sb, own, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, MPI_INTEGER, g, &
                                      MPI_INFO_NULL, r, ierr)
      case (8)
        call NEIGHBOR_ALLTOALL_INIT(sb, c, MPI_INTEGER, rb(LEAD + 1), c, MPI_INTEGER, g, MPI_INFO_NULL, r, ierr)
      case (9)
        call NEIGHBOR_ALLTOALLV_INIT(sb, scounts, sdispls, MPI_INTEGER, rb(LEAD + 1), rcounts, rdispls, &
                                     MPI_INTEGER, g, MPI_INFO_NULL, r, ierr)
      case (10)
        call NEIGHBOR_ALLTOALLW_INIT(sb, scounts, wsdispls, stypes, rb(LEAD + 1), rcounts, wrdispls, rtypes, g, &
                                     MPI_INFO_NULL, r, ierr)
#endif
      end select
      call expect_ok(ierr, what//': start')
    end subroutine start_nonblocking

    subroutine report(what, round)
      character(len=*), intent(in) :: what
      integer, intent(in) :: round
      character(len=160) :: text
      do e = 1, n
        if (rb(e) /= expected(e)) then
          write (text, '(a,i0,a,i0,a,i0,a,i0)') ' round ', round, ': element ', e - LEAD, ' is ', rb(e), &
            ', closed form ', expected(e)
          call fail(what//trim(text))
          return
        end if
      end do
    end subroutine report
  end subroutine run_case

  ! Completes reqs (the collective's between two user requests) by one
  ! completion call; keep: persistent, stays allocated.
  subroutine complete(reqs, keep, method, what)
    T_REQ, intent(inout) :: reqs(3)
    logical, intent(in) :: keep(3)
    integer, intent(in) :: method
    character(len=*), intent(in) :: what
    T_STATUS :: st
    T_STATUSES(3) :: sts
    logical :: done(3), flag
    integer :: i, k, idx, outc, ids(3)
    double precision :: t0

    done = .false.
    t0 = MPI_Wtime()
    select case (method)
    case (1)  ! MPI_Wait, one by one; MPI_STATUS_IGNORE for the collective
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      call expect_ok(ierr, what//': MPI_Wait')
      do i = 1, 3, 2
        call MPI_Wait(reqs(i), st, ierr)
        call expect_ok(ierr, what//': MPI_Wait')
        if (i == 1) call user_status(ST_SOURCE(st), ST_TAG(st))
      end do
    case (2)  ! MPI_Waitall
      call MPI_Waitall(3, reqs, sts, ierr)
      call expect_ok(ierr, what//': MPI_Waitall')
      call user_status(STS_SOURCE(sts, 1), STS_TAG(sts, 1))
    case (3)  ! MPI_Waitany until none is left
      do k = 1, 3
        call MPI_Waitany(3, reqs, idx, st, ierr)
        call expect_ok(ierr, what//': MPI_Waitany')
        call mark(idx + idx_off)
        if (idx + idx_off == 1) call user_status(ST_SOURCE(st), ST_TAG(st))
      end do
      call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
      if (idx /= undefined_index) call fail(what//': MPI_Waitany found a request after all completed')
    case (4, 8)  ! MPI_Waitsome, MPI_Testsome
      do while (.not. all(done) .and. in_time())
        if (method == 4) then
          call MPI_Waitsome(3, reqs, outc, ids, sts, ierr)
        else
          call MPI_Testsome(3, reqs, outc, ids, sts, ierr)
        end if
        call expect_ok(ierr, what//': MPI_Waitsome or MPI_Testsome')
        if (outc == MPI_UNDEFINED .or. (method == 4 .and. outc < 1)) then
          call fail(what//': no active request left before all completed')
          exit
        end if
        do k = 1, outc
          call mark(ids(k) + idx_off)
          if (ids(k) + idx_off == 1) call user_status(STS_SOURCE(sts, k), STS_TAG(sts, k))
        end do
      end do
    case (5, 9)  ! MPI_Test, one by one; MPI_Request_get_status, then MPI_Request_free (persistent: MPI_Wait)
      do i = 1, 3
        flag = .false.
        do while (.not. flag .and. in_time())
          if (method == 5) then
            call MPI_Test(reqs(i), flag, st, ierr)
          else
            call MPI_Request_get_status(reqs(i), flag, st, ierr)
          end if
          call expect_ok(ierr, what//': MPI_Test or MPI_Request_get_status')
        end do
        if (i == 1) call user_status(ST_SOURCE(st), ST_TAG(st))
        if (method == 5) cycle
        if (keep(i)) then
          call MPI_Wait(reqs(i), MPI_STATUS_IGNORE, ierr)
        else
          call MPI_Request_free(reqs(i), ierr)
        end if
        call expect_ok(ierr, what//': completing after MPI_Request_get_status')
      end do
    case (6)  ! MPI_Testall, MPI_STATUSES_IGNORE
      flag = .false.
      do while (.not. flag .and. in_time())
        call MPI_Testall(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
        call expect_ok(ierr, what//': MPI_Testall')
      end do
    case (7)  ! MPI_Testany
      do while (.not. all(done) .and. in_time())
        call MPI_Testany(3, reqs, idx, flag, st, ierr)
        call expect_ok(ierr, what//': MPI_Testany')
        if (flag .and. idx /= undefined_index) then
          call mark(idx + idx_off)
          if (idx + idx_off == 1) call user_status(ST_SOURCE(st), ST_TAG(st))
        end if
      end do
    end select
    do i = 1, 3
      if (.not. keep(i) .and. reqs(i) /= MPI_REQUEST_NULL) call fail(what//': a request was left')
      if (keep(i) .and. reqs(i) == MPI_REQUEST_NULL) call fail(what//': the persistent request was freed')
    end do

  contains

    subroutine mark(i)
      integer, intent(in) :: i
      if (i < 1 .or. i > 3) then
        call fail(what//': an index out of range')
      else if (done(i)) then
        call fail(what//': a request reported twice')
      else
        done(i) = .true.
      end if
    end subroutine mark

    logical function in_time()
      in_time = MPI_Wtime() - t0 < 30d0
      if (.not. in_time) call fail(what//': not complete after 30 s of testing')
    end function in_time

    subroutine user_status(source, tag)
      integer, intent(in) :: source, tag
      if (source /= rank .or. tag /= TAG_USER) call fail(what//': the user receive''s status is wrong')
    end subroutine user_status
  end subroutine complete

end module nbr_fortran_test

program nbr_fortran
  use nbr_fortran_test, only: main
  call main()
end program nbr_fortran
