// Generated sparse matrices for the SpMM benchmark (no data files needed).
// Each is the symmetric pattern matrix of an undirected graph.
#pragma once

#include <cstdint>
#include <string>

#include "bench/core/sparse.h"

namespace nbrbench {

// Cube-connected cycles CCC(d): vertex (x, i), 0 <= x < 2^d, 0 <= i < d,
// numbered d*x + i; edges to (x, (i+1) mod d) and (x XOR 2^i, i). d >= 3.
// CCC(6) has 384 rows and 1,152 non-zeros (SuiteSparse AG-Monien ccc graph 4).
CsrMatrix cube_connected_cycles(int d);

// Undirected binary de Bruijn graph on 2^d vertices: x joined to 2x and
// 2x+1 (mod 2^d), self loops and repeated edges dropped. d = 8 gives 256
// rows and 1,018 non-zeros (AG-Monien debr graph 6).
CsrMatrix de_bruijn(int d);

// A Delaunay-like planar mesh on n points: a jittered grid of width
// floor(sqrt(n)) filled row by row, every cell split by one diagonal chosen
// at random from `seed`. Interior vertices have degree 6 on average, like
// DIMACS10 delaunay_nXX.
CsrMatrix delaunay_like(std::int64_t n, std::uint64_t seed);

// "gen:ccc:D", "gen:debruijn:D", "gen:delaunay:N[:SEED]"; anything else is
// read as a Matrix Market file. Throws std::runtime_error on a bad spec.
CsrMatrix load_matrix(const std::string& spec);

// A short name for tables: "ccc6", "debruijn8", "delaunay1024", or the
// file's base name without ".mtx".
std::string matrix_name(const std::string& spec);

}  // namespace nbrbench
