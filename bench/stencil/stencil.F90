! nbrcoll-stencil-f: the halo exchange of a 2-D or 3-D stencil code in
! Fortran ("use mpi"), timed with nbrcoll's algorithms side by side; the
! same exchanges, grid, closed form and table as nbrcoll-stencil (the C++
! program, stencil.cpp; README.md):
!   cart-w   a Cartesian communicator (faces), MPI_Neighbor_alltoallw on
!            subarray types of the array itself
!   cart-v   the same neighbours, faces packed, MPI_Neighbor_alltoallv, unpacked
!   graph-w  a distributed graph of every neighbour (8 or 26; or the faces
!            with --graph-stencil faces), MPI_Neighbor_alltoallw on subarrays
!   graph-v  the graph's neighbours, packed, MPI_Neighbor_alltoallv
! Options: --dims 2|3 --n N[,N...] --halo H --exchanges LIST --graph-stencil
! full|faces --algos LIST --warmup N --iters N. Every call is followed by a
! check of the whole array against the closed form; a wrong cell fails the
! run (exit status 1). Linked with nbrcoll_static: nbrcoll's Fortran entry
! points take the calls; the algorithm of each call is chosen through a C
! hook (stencil_report.h), which also orders the rounds and prints the table.
!
! The local array is field(0:E2-1, 0:E1-1, 0:E0-1), E_k = n + 2 halo for the
! used dimensions and 1 otherwise: the C program's row-major array with the
! dimensions reversed, so the same memory holds the same cells. Coordinates,
! offsets and boxes below are in the C program's order (index 1 = dimension 0).
module stencil_mod
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_double, c_char, c_null_char
  implicit none

  integer, parameter :: MAXNB = 26, MAXALGOS = 8
  real(8), parameter :: GUARD = -1.0d0

  interface
    integer(c_int) function nbrstencil_select_algo(name) bind(C, name='nbrstencil_select_algo')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end function nbrstencil_select_algo
    subroutine nbrstencil_round_order(round, count, order) bind(C, name='nbrstencil_round_order')
      import :: c_int, c_long_long
      integer(c_long_long), value :: round
      integer(c_int), value :: count
      integer(c_int), intent(out) :: order(*)
    end subroutine nbrstencil_round_order
    subroutine nbrstencil_print_heading(program, dims, procs, periodic, ranks, nodes, iters, mpi) &
      bind(C, name='nbrstencil_print_heading')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: program, mpi
      integer(c_int), value :: dims, ranks, nodes, iters
      integer(c_int), intent(in) :: procs(*), periodic(*)
    end subroutine nbrstencil_print_heading
    integer(c_int) function nbrstencil_tuning_busy(comm) bind(C, name='nbrstencil_tuning_busy')
      import :: c_int
      integer(c_int), value :: comm
    end function nbrstencil_tuning_busy
    subroutine nbrstencil_print_settled(exchange, n, calls) bind(C, name='nbrstencil_print_settled')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: exchange
      integer(c_int), value :: n, calls
    end subroutine nbrstencil_print_settled
    subroutine nbrstencil_print_rows(exchange, n, halo, neighbours, face_bytes, algos, names, iters, seconds) &
      bind(C, name='nbrstencil_print_rows')
      import :: c_int, c_long_long, c_char, c_double
      character(kind=c_char), dimension(*), intent(in) :: exchange, names
      integer(c_int), value :: n, halo, neighbours, algos, iters
      integer(c_long_long), value :: face_bytes
      real(c_double), intent(in) :: seconds(*)
    end subroutine nbrstencil_print_rows
  end interface

  ! The run's settings and grid (the same on every rank).
  integer :: dims = 2, halo = 1, warmup = 2, iters = 20, nsizes = 0, sizes(16)
  integer :: nalgos = 4, nexchanges = 4
  character(len=16) :: algos(MAXALGOS), exchanges(4)
  character(len=8) :: graph_stencil = 'full'
  character(len=256) :: algo_list = 'native,linear,aggregated,auto'
  integer :: rank, nprocs, procs(3), n, ext(3)
  logical :: periodic(3)
  integer :: failures = 0
  character(len=256) :: first_failure = ''

  ! One exchange: its communicator, neighbours and what each call needs.
  type :: exchange_t
    character(len=16) :: name
    integer :: comm = MPI_COMM_NULL, count = 0, packed = 0
    logical :: per_block = .false.
    integer :: offsets(3, MAXNB), peers(MAXNB)
    integer :: stypes(MAXNB), rtypes(MAXNB), ones(MAXNB)
    integer(kind=MPI_ADDRESS_KIND) :: zeros(MAXNB)
    integer :: scounts(MAXNB), sdispls(MAXNB), rcounts(MAXNB), rdispls(MAXNB)
    real(8), allocatable :: sbuf(:), rbuf(:)
  end type exchange_t

contains

  subroutine main()
    integer :: ierr, s, e, nodes, periodic_c(3), len
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
    character(len=300) :: mpi_text

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call parse_options()
    procs = 0
    call MPI_Dims_create(nprocs, dims, procs, ierr)
    where (procs == 0) procs = 1
    periodic = procs >= 3
    if (dims == 2) then
      procs(3) = 1
      periodic(3) = .false.
    end if
    do e = 1, nalgos
      if (nbrstencil_select_algo(trim(algos(e))//c_null_char) /= 0) call usage('unknown algorithm '//trim(algos(e)))
    end do
    nodes = count_nodes()
    call MPI_Get_library_version(library, len, ierr)
    e = index(library, new_line('a'))
    if (e == 0) e = len + 1
    write (mpi_text, '(a,a)') library(1:min(e - 1, 120)), ' (nbrcoll-stencil-f, use mpi)'
    periodic_c = merge(1, 0, periodic)
    if (rank == 0) call nbrstencil_print_heading('nbrcoll-stencil-f'//c_null_char, int(dims, c_int), procs, &
                                                 periodic_c, int(nprocs, c_int), int(nodes, c_int), &
                                                 int(iters, c_int), trim(mpi_text)//c_null_char)
    do s = 1, nsizes
      n = sizes(s)
      ext = 1
      ext(1:dims) = n + 2 * halo
      do e = 1, nexchanges
        call time_exchange(exchanges(e))
      end do
    end do
    call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (len_trim(first_failure) > 0) write (0, '(a,i0,a,a)') 'nbrcoll-stencil-f: VALIDATION FAILED on rank ', rank, &
                                                             ': ', trim(first_failure)
    call MPI_Finalize(ierr)
    if (failures > 0) error stop 1
  end subroutine main

  subroutine usage(why)
    character(len=*), intent(in) :: why
    integer :: ierr
    if (rank == 0) write (0, '(a,a)') 'nbrcoll-stencil-f: ', why
    if (rank == 0) write (0, '(a)') 'usage: nbrcoll-stencil-f [--dims 2|3] [--n N[,N...]] [--halo H] '// &
      '[--exchanges cart-w,cart-v,graph-w,graph-v] [--graph-stencil full|faces] [--algos LIST] [--warmup N] [--iters N]'
    call MPI_Finalize(ierr)
    error stop 2
  end subroutine usage

  ! Splits a comma-separated list into words.
  subroutine split(text, words, count)
    character(len=*), intent(in) :: text
    character(len=*), intent(out) :: words(:)
    integer, intent(out) :: count
    integer :: start, comma
    count = 0
    start = 1
    do while (start <= len_trim(text) .and. count < size(words))
      comma = index(text(start:), ',')
      count = count + 1
      if (comma == 0) then
        words(count) = text(start:len_trim(text))
        exit
      end if
      words(count) = text(start:start + comma - 2)
      start = start + comma
    end do
  end subroutine split

  subroutine parse_options()
    character(len=256) :: option, value
    character(len=16) :: words(16)
    integer :: i, k, stat
    character(len=256) :: exchange_list = 'cart-w,cart-v,graph-w,graph-v', size_list = ''
    i = 1
    do while (i <= command_argument_count())
      call get_command_argument(i, option)
      if (i + 1 > command_argument_count()) call usage('option '//trim(option)//' needs a value')
      call get_command_argument(i + 1, value)
      i = i + 2
      select case (trim(option))
      case ('--dims')
        read (value, *, iostat=stat) dims
      case ('--n')
        size_list = value
      case ('--halo')
        read (value, *, iostat=stat) halo
      case ('--exchanges')
        exchange_list = value
      case ('--graph-stencil')
        graph_stencil = value(1:8)
      case ('--algos')
        algo_list = value
      case ('--warmup')
        read (value, *, iostat=stat) warmup
      case ('--iters')
        read (value, *, iostat=stat) iters
      case default
        call usage('unknown option '//trim(option))
      end select
    end do
    if (dims /= 2 .and. dims /= 3) call usage('--dims must be 2 or 3')
    if (len_trim(size_list) == 0) size_list = merge('16,128,1024', '8,24,64    ', dims == 2)
    call split(size_list, words, nsizes)
    do k = 1, nsizes
      read (words(k), *, iostat=stat) sizes(k)
      if (stat /= 0 .or. sizes(k) < halo .or. halo < 1) call usage('bad --n or --halo')
    end do
    call split(exchange_list, exchanges, nexchanges)
    do k = 1, nexchanges
      select case (trim(exchanges(k)))
      case ('cart-w', 'cart-v', 'graph-w', 'graph-v')
      case default
        call usage('unknown exchange '//trim(exchanges(k)))
      end select
    end do
    if (graph_stencil /= 'full' .and. graph_stencil /= 'faces') call usage('--graph-stencil full or faces')
    call split(algo_list, algos, nalgos)
    if (iters < 1 .or. warmup < 0) call usage('--iters >= 1, --warmup >= 0')
  end subroutine parse_options

  ! Nodes: NBRCOLL_RANKS_PER_NODE (emulated), else the shared-memory groups.
  integer function count_nodes() result(nodes)
    character(len=32) :: text
    integer :: rpn, stat, ierr, local, shared, first
    call get_environment_variable('NBRCOLL_RANKS_PER_NODE', text)
    read (text, *, iostat=stat) rpn
    if (stat == 0 .and. rpn > 0) then
      nodes = (nprocs + rpn - 1) / rpn
      return
    end if
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shared, ierr)
    call MPI_Comm_rank(shared, local, ierr)
    first = merge(1, 0, local == 0)
    call MPI_Allreduce(first, nodes, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_free(shared, ierr)
  end function count_nodes

  ! ---- the grid (as bench/stencil/halo.cpp) -----------------------------------

  function coords_of(r) result(c)
    integer, intent(in) :: r
    integer :: c(3), k, left
    left = r
    do k = 3, 1, -1
      c(k) = mod(left, procs(k))
      left = left / procs(k)
    end do
  end function coords_of

  ! The rank at coords + offset, or -1 beyond a non-periodic border.
  integer function rank_at(c, o) result(r)
    integer, intent(in) :: c(3), o(3)
    integer :: k, x
    r = 0
    do k = 1, 3
      x = c(k) + o(k)
      if (x < 0 .or. x >= procs(k)) then
        if (.not. periodic(k)) then
          r = -1
          return
        end if
        x = modulo(x, procs(k))
      end if
      r = r * procs(k) + x
    end do
  end function rank_at

  ! Neighbour offsets: faces (per dimension -1 then +1) or all 3^dims - 1.
  subroutine neighbour_offsets(full, offs, count)
    logical, intent(in) :: full
    integer, intent(out) :: offs(3, MAXNB), count
    integer :: k, a, b, c, span(3)
    count = 0
    if (.not. full) then
      do k = 1, dims
        do a = -1, 1, 2
          count = count + 1
          offs(:, count) = 0
          offs(k, count) = a
        end do
      end do
      return
    end if
    span = 0
    span(1:dims) = 1
    do a = -span(1), span(1)
      do b = -span(2), span(2)
        do c = -span(3), span(3)
          if (a == 0 .and. b == 0 .and. c == 0) cycle
          count = count + 1
          offs(:, count) = [a, b, c]
        end do
      end do
    end do
  end subroutine neighbour_offsets

  ! The interior box sent towards o (send) or the halo box received from there.
  subroutine box_of(o, send, start, extent)
    integer, intent(in) :: o(3)
    logical, intent(in) :: send
    integer, intent(out) :: start(3), extent(3)
    integer :: k
    start = 0
    extent = 1
    do k = 1, dims
      if (o(k) == 0) then
        start(k) = halo
        extent(k) = n
      else
        extent(k) = halo
        if (send) start(k) = merge(halo, n, o(k) < 0)
        if (.not. send) start(k) = merge(0, n + halo, o(k) < 0)
      end if
    end do
  end subroutine box_of

  real(8) function cell_value(global, round)
    integer, intent(in) :: global(3)
    integer(8), intent(in) :: round
    integer(8) :: linear, total, width
    integer :: k
    linear = 0
    total = 1
    do k = 1, 3
      width = int(procs(k), 8) * merge(int(n, 8), 1_8, k <= dims)
      linear = linear * width + global(k)
      total = total * width
    end do
    cell_value = real(mod(round, 4096_8) * total + linear + 1, 8)
  end function cell_value

  ! Global coordinates of local cell i (periodic wrap) and its side.
  subroutine locate(me, i, global, side)
    integer, intent(in) :: me(3), i(3)
    integer, intent(out) :: global(3), side(3)
    integer :: k, width
    global = 0
    side = 0
    do k = 1, dims
      if (i(k) < halo) side(k) = -1
      if (i(k) >= n + halo) side(k) = 1
      width = procs(k) * n
      global(k) = modulo(me(k) * n + i(k) - halo, width)
    end do
  end subroutine locate

  subroutine fill(field, round)
    real(8), intent(out) :: field(0:, 0:, 0:)
    integer(8), intent(in) :: round
    integer :: i0, i1, i2, global(3), side(3), me(3)
    me = coords_of(rank)
    do i0 = 0, ext(1) - 1
      do i1 = 0, ext(2) - 1
        do i2 = 0, ext(3) - 1
          call locate(me, [i0, i1, i2], global, side)
          field(i2, i1, i0) = GUARD
          if (all(side == 0)) field(i2, i1, i0) = cell_value(global, round)
        end do
      end do
    end do
  end subroutine fill

  ! After exchange x: every cell against its closed form.
  subroutine check(x, field, round, algo)
    type(exchange_t), intent(in) :: x
    real(8), intent(in) :: field(0:, 0:, 0:)
    integer(8), intent(in) :: round
    character(len=*), intent(in) :: algo
    integer :: i0, i1, i2, global(3), side(3), me(3), k
    logical :: filled
    real(8) :: want
    me = coords_of(rank)
    do i0 = 0, ext(1) - 1
      do i1 = 0, ext(2) - 1
        do i2 = 0, ext(3) - 1
          call locate(me, [i0, i1, i2], global, side)
          filled = all(side == 0)
          if (.not. filled) then
            do k = 1, x%count
              if (all(x%offsets(:, k) == side)) filled = rank_at(me, side) >= 0
            end do
          end if
          want = merge(cell_value(global, round), GUARD, filled)
          if (field(i2, i1, i0) /= want) then
            failures = failures + 1
            if (failures == 1) write (first_failure, '(a,1x,a,a,i0,a,i0,a,3(1x,i0),a)') trim(x%name), trim(algo), &
              ' n ', n, ' call ', round, ': cell', i0, i1, i2, ' differs from the closed form'
            return
          end if
        end do
      end do
    end do
  end subroutine check

  ! ---- the exchanges ----------------------------------------------------------

  integer function subarray(start, extent)
    integer, intent(in) :: start(3), extent(3)
    integer :: ierr, fsizes(3), fsub(3), fstart(3), k
    ! Fortran order: the C program's dimensions reversed.
    do k = 1, dims
      fsizes(k) = ext(dims + 1 - k)
      fsub(k) = extent(dims + 1 - k)
      fstart(k) = start(dims + 1 - k)
    end do
    call MPI_Type_create_subarray(dims, fsizes, fsub, fstart, MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, subarray, ierr)
    call MPI_Type_commit(subarray, ierr)
  end function subarray

  subroutine make_exchange(x, name)
    type(exchange_t), intent(out) :: x
    character(len=*), intent(in) :: name
    integer :: ierr, k, all_offsets(3, MAXNB), total, me(3), below, above, start(3), extent(3), cells, want
    x%name = name
    x%per_block = name(len_trim(name):len_trim(name)) == 'w'
    me = coords_of(rank)
    if (name(1:4) == 'cart') then
      call MPI_Cart_create(MPI_COMM_WORLD, dims, procs, periodic, .false., x%comm, ierr)
      call neighbour_offsets(.false., x%offsets, x%count)
      do k = 1, dims
        call MPI_Cart_shift(x%comm, k - 1, 1, below, above, ierr)
        x%peers(2 * k - 1) = below
        x%peers(2 * k) = above
      end do
      do k = 1, x%count
        want = rank_at(me, x%offsets(:, k))
        if (want < 0) want = MPI_PROC_NULL
        if (x%peers(k) /= want) call usage('MPI_Cart_shift disagrees with the grid''s neighbours')
      end do
    else
      call neighbour_offsets(graph_stencil == 'full', all_offsets, total)
      x%count = 0
      do k = 1, total
        if (rank_at(me, all_offsets(:, k)) < 0) cycle
        x%count = x%count + 1
        x%offsets(:, x%count) = all_offsets(:, k)
        x%peers(x%count) = rank_at(me, all_offsets(:, k))
      end do
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, x%count, x%peers, MPI_UNWEIGHTED, x%count, x%peers, &
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, .false., x%comm, ierr)
    end if
    x%packed = 0
    do k = 1, x%count
      call box_of(x%offsets(:, k), .true., start, extent)
      cells = product(extent)
      if (x%per_block) x%stypes(k) = subarray(start, extent)
      call box_of(x%offsets(:, k), .false., start, extent)
      if (x%per_block) x%rtypes(k) = subarray(start, extent)
      x%scounts(k) = cells
      x%rcounts(k) = cells
      x%sdispls(k) = x%packed
      x%rdispls(k) = x%packed
      x%packed = x%packed + cells
    end do
    x%ones = 1
    x%zeros = 0
    allocate (x%sbuf(max(1, x%packed)), x%rbuf(max(1, x%packed)))
  end subroutine make_exchange

  subroutine free_exchange(x)
    type(exchange_t), intent(inout) :: x
    integer :: ierr, k
    if (x%per_block) then
      do k = 1, x%count
        call MPI_Type_free(x%stypes(k), ierr)
        call MPI_Type_free(x%rtypes(k), ierr)
      end do
    end if
    call MPI_Comm_free(x%comm, ierr)
    deallocate (x%sbuf, x%rbuf)
  end subroutine free_exchange

  ! Copies box (start, extent) of field to buf(at+1:) (to_buffer) or back.
  subroutine copy_box(field, buf, at, start, extent, to_buffer)
    real(8), intent(inout) :: field(0:, 0:, 0:), buf(:)
    integer, intent(in) :: at, start(3), extent(3)
    logical, intent(in) :: to_buffer
    integer :: i0, i1, i2, p
    p = at
    do i0 = start(1), start(1) + extent(1) - 1
      do i1 = start(2), start(2) + extent(2) - 1
        do i2 = start(3), start(3) + extent(3) - 1
          p = p + 1
          if (to_buffer) then
            buf(p) = field(i2, i1, i0)
          else
            field(i2, i1, i0) = buf(p)
          end if
        end do
      end do
    end do
  end subroutine copy_box

  subroutine run_exchange(x, field, ierr)
    type(exchange_t), intent(inout) :: x
    real(8), intent(inout) :: field(0:, 0:, 0:)
    integer, intent(out) :: ierr
    integer :: k, start(3), extent(3)
    if (x%per_block) then
      call MPI_Neighbor_alltoallw(field, x%ones, x%zeros, x%stypes, field, x%ones, x%zeros, x%rtypes, x%comm, ierr)
      return
    end if
    do k = 1, x%count
      if (x%peers(k) == MPI_PROC_NULL) cycle
      call box_of(x%offsets(:, k), .true., start, extent)
      call copy_box(field, x%sbuf, x%sdispls(k), start, extent, .true.)
    end do
    call MPI_Neighbor_alltoallv(x%sbuf, x%scounts, x%sdispls, MPI_DOUBLE_PRECISION, x%rbuf, x%rcounts, x%rdispls, &
                                MPI_DOUBLE_PRECISION, x%comm, ierr)
    do k = 1, x%count
      if (x%peers(k) == MPI_PROC_NULL) cycle
      call box_of(x%offsets(:, k), .false., start, extent)
      call copy_box(field, x%rbuf, x%rdispls(k), start, extent, .false.)
    end do
  end subroutine run_exchange

  ! Every algorithm once a round, in the round's shuffled order; the
  ! slowest rank's time of each call; the table row on rank 0.
  subroutine time_exchange(name)
    character(len=*), intent(in) :: name
    type(exchange_t) :: xs(MAXALGOS)
    real(8), allocatable :: field(:, :, :), seconds(:)
    integer(c_int) :: order(MAXALGOS)
    integer(8), save :: call_number = 0
    integer :: round, j, a, ierr, rc, neighbours, settled
    integer(8) :: face
    real(8) :: t0, t1
    allocate (field(0:ext(3) - 1, 0:ext(2) - 1, 0:ext(1) - 1), seconds(nalgos * iters))
    ! A communicator for each algorithm, made with it selected, as an
    ! application repeats one exchange: nbrcoll keeps what a repeated call
    ! reuses per communicator, which calls of other algorithms on the same
    ! one would undo every round.
    do a = 1, nalgos
      ierr = nbrstencil_select_algo(trim(algos(a))//c_null_char)
      call make_exchange(xs(a), name)
    end do
    ! auto is timed as a program that repeats the exchange runs it: once its
    ! tuning has settled (untimed calls, at most 160, as nbrcoll-bench).
    do a = 1, nalgos
      if (trim(algos(a)) /= 'auto') cycle
      ierr = nbrstencil_select_algo(trim(algos(a))//c_null_char)
      do settled = 1, 160
        call fill(field, call_number)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        call run_exchange(xs(a), field, rc)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        call note_failure(rc, name, algos(a))
        call check(xs(a), field, call_number, algos(a))
        call_number = call_number + 1
        if (nbrstencil_tuning_busy(int(xs(a)%comm, c_int)) == 0) exit
      end do
      if (rank == 0 .and. settled > 1) call nbrstencil_print_settled(trim(name)//c_null_char, int(n, c_int), &
                                                                      int(min(settled, 160), c_int))
    end do
    do round = -warmup, iters - 1
      call nbrstencil_round_order(int(round + warmup, c_long_long), int(nalgos, c_int), order)
      do j = 1, nalgos
        a = order(j) + 1
        ierr = nbrstencil_select_algo(trim(algos(a))//c_null_char)
        call fill(field, call_number)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        t0 = MPI_Wtime()
        call run_exchange(xs(a), field, rc)
        t1 = MPI_Wtime()
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        call note_failure(rc, name, algos(a))
        call check(xs(a), field, call_number, algos(a))
        call_number = call_number + 1
        if (round >= 0) seconds((a - 1) * iters + round + 1) = t1 - t0
      end do
    end do
    call MPI_Allreduce(MPI_IN_PLACE, seconds, nalgos * iters, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(xs(1)%count, neighbours, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    face = 8_8 * halo * int(n, 8)**(dims - 1)
    if (rank == 0) call nbrstencil_print_rows(trim(name)//c_null_char, int(n, c_int), int(halo, c_int), &
                                              int(neighbours, c_int), int(face, c_long_long), int(nalgos, c_int), &
                                              trim(algo_list)//c_null_char, int(iters, c_int), seconds)
    do a = 1, nalgos
      call free_exchange(xs(a))
    end do
    deallocate (field, seconds)
  end subroutine time_exchange

  ! Counts a call that returned an error (the first one is reported).
  subroutine note_failure(rc, name, algo)
    integer, intent(in) :: rc
    character(len=*), intent(in) :: name, algo
    if (rc == MPI_SUCCESS) return
    failures = failures + 1
    if (failures == 1) first_failure = trim(name)//' '//trim(algo)//': the call failed'
  end subroutine note_failure

end module stencil_mod

program nbrcoll_stencil_f
  use stencil_mod, only: main
  implicit none
  call main()
end program nbrcoll_stencil_f
