"""DOLFINx's set-up and vector scatter, timed phase by phase (bench/apps/run.sh).

A 3-D unit cube mesh, then P1 and P2 Lagrange function spaces on it (each
creates DOLFINx's index maps and their neighbourhood communicators), then
the ghost update of a function of each space (Function.x.scatter_forward:
one MPI_Ineighbor_alltoallv and its wait), repeated. Every phase between
barriers; its time is the slowest rank's. Prints one "name seconds" line
per phase on rank 0 (scatters: the median of --scatters repetitions).
Runs unchanged with or without libnbrcoll preloaded.
"""
import argparse
import statistics
import time

from mpi4py import MPI
from dolfinx import fem, mesh


def timed(comm, fn):
    comm.Barrier()
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    return result, comm.allreduce(elapsed, op=MPI.MAX)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=16, help="cells per side of the unit cube")
    parser.add_argument("--scatters", type=int, default=50)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    # The forms' JIT compilation (cached on disk) outside the timed phases.
    tiny = mesh.create_unit_cube(MPI.COMM_SELF, 1, 1, 1)
    for degree in (1, 2):
        fem.FunctionSpace(tiny, ("Lagrange", degree))
    phases = []
    cube, t = timed(comm, lambda: mesh.create_unit_cube(comm, args.cells, args.cells, args.cells))
    phases.append(("mesh", t))
    for degree in (1, 2):
        space, t = timed(comm, lambda: fem.FunctionSpace(cube, ("Lagrange", degree)))
        phases.append((f"space_p{degree}", t))
        u = fem.Function(space)
        u.x.scatter_forward()  # the first call may build what later ones reuse
        times = [timed(comm, u.x.scatter_forward)[1] for _ in range(args.scatters)]
        phases.append((f"scatter_p{degree}", statistics.median(times)))
    if comm.rank == 0:
        for name, seconds in phases:
            print(f"{name} {seconds:.9f}")


if __name__ == "__main__":
    main()
