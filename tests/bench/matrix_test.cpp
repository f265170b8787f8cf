#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/core/matrix_gen.h"
#include "bench/core/mtx.h"

using namespace nbrbench;

namespace {

bool symmetric(const CsrMatrix& m) {
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto e = m.row_ptr[static_cast<std::size_t>(r)]; e < m.row_ptr[static_cast<std::size_t>(r) + 1]; ++e) {
      const auto c = m.col[static_cast<std::size_t>(e)];
      bool found = false;
      for (auto f = m.row_ptr[static_cast<std::size_t>(c)]; f < m.row_ptr[static_cast<std::size_t>(c) + 1]; ++f)
        found = found || m.col[static_cast<std::size_t>(f)] == r;
      if (!found) return false;
    }
  return true;
}

}  // namespace

TEST(MatrixMarket, GeneralReal) {
  std::istringstream in(
      "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 4\n1 1 2.5\n3 4 -1\n1 3 1e-3\n1 1 0.5\n");
  const CsrMatrix m = read_matrix_market(in);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.nnz(), 3);  // the duplicate (1,1) is summed
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 2, 3}));
  EXPECT_EQ(m.col, (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_DOUBLE_EQ(m.value[0], 3.0);
  EXPECT_DOUBLE_EQ(m.value[1], 1e-3);
  EXPECT_DOUBLE_EQ(m.value[2], -1.0);
}

TEST(MatrixMarket, SymmetricPatternIsExpanded) {
  std::istringstream in("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 3\n3 2\n");
  const CsrMatrix m = read_matrix_market(in);
  EXPECT_EQ(m.nnz(), 5);  // (2,1),(1,2),(3,3),(3,2),(2,3)
  EXPECT_TRUE(symmetric(m));
  EXPECT_DOUBLE_EQ(m.value[0], 1.0);
}

TEST(MatrixMarket, IntegerAndSkewSymmetric) {
  std::istringstream in("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n");
  const CsrMatrix m = read_matrix_market(in);
  ASSERT_EQ(m.nnz(), 2);
  EXPECT_DOUBLE_EQ(m.value[0], -7.0);  // (1,2)
  EXPECT_DOUBLE_EQ(m.value[1], 7.0);   // (2,1)
}

TEST(MatrixMarket, RejectsBadInput) {
  auto fails = [](const char* text) {
    std::istringstream in(text);
    EXPECT_THROW(read_matrix_market(in), std::runtime_error) << text;
  };
  fails("");
  fails("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  fails("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n");
  fails("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n");    // too few entries
  fails("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");    // out of range
  fails("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n");  // not square
  fails("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n");      // missing value
}

TEST(MatrixMarket, MoreEntriesThanTheHeaderSaysIsAnError) {
  // Trailing blank lines and comments are fine; a third entry is not.
  std::istringstream ok("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n\n  \n% end\n");
  EXPECT_EQ(read_matrix_market(ok).nnz(), 2);
  std::istringstream extra("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n\n1 2 1\n");
  try {
    read_matrix_market(extra);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "Matrix Market line 6: more entries than the 2 the size line announces");
  }
}

TEST(MatrixMarket, FileErrorsNameTheFileAndLine) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "nbrcoll_mtx_test_extra.mtx";
  {
    std::ofstream f(path);
    f << "%%MatrixMarket matrix coordinate pattern general\n% comment\n2 2 1\n1 1\n2 2\n";
  }
  try {
    read_matrix_market_file(path.string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path.string() + ": Matrix Market line 5: more entries than the 1 the size line announces");
  }
  std::filesystem::remove(path);
}

TEST(Generators, CubeConnectedCyclesMatchesSuiteSparseSize) {
  const CsrMatrix m = cube_connected_cycles(6);
  EXPECT_EQ(m.rows, 384);
  EXPECT_EQ(m.nnz(), 1152);
  EXPECT_TRUE(symmetric(m));
  for (std::int64_t r = 0; r < m.rows; ++r)
    EXPECT_EQ(m.row_ptr[static_cast<std::size_t>(r) + 1] - m.row_ptr[static_cast<std::size_t>(r)], 3);
}

TEST(Generators, DeBruijnMatchesSuiteSparseSize) {
  const CsrMatrix m = de_bruijn(8);
  EXPECT_EQ(m.rows, 256);
  EXPECT_EQ(m.nnz(), 1018);
  EXPECT_TRUE(symmetric(m));
}

TEST(Generators, DelaunayLikeIsAPlanarTriangulation) {
  const CsrMatrix m = delaunay_like(1024, 1);
  EXPECT_EQ(m.rows, 1024);
  // A 32x32 grid triangulation: 2*32*31 grid edges + 31*31 diagonals.
  EXPECT_EQ(m.nnz(), 2 * (2 * 32 * 31 + 31 * 31));
  EXPECT_TRUE(symmetric(m));
  EXPECT_LE(m.nnz() / 2, 3 * m.rows - 6);        // planar
  EXPECT_EQ(delaunay_like(1000, 3).rows, 1000);  // partial last row
  EXPECT_TRUE(symmetric(delaunay_like(1000, 3)));
}

TEST(Generators, SpecsAndNames) {
  EXPECT_EQ(load_matrix("gen:ccc:3").rows, 24);
  EXPECT_EQ(load_matrix("gen:delaunay:50:9").rows, 50);
  EXPECT_THROW(load_matrix("gen:nope:3"), std::runtime_error);
  EXPECT_THROW(load_matrix("gen:ccc:x"), std::runtime_error);
  EXPECT_THROW(load_matrix("/nonexistent/file.mtx"), std::runtime_error);
  EXPECT_EQ(matrix_name("gen:ccc:6"), "ccc6");
  EXPECT_EQ(matrix_name("/a/b/crack.mtx"), "crack");
}

TEST(SharedMatrices, ReadWhenPresent) {
  const std::filesystem::path dir = NBRBENCH_SHARED_MATRICES;
  if (!std::filesystem::exists(dir / "ccc_G_04.mtx")) GTEST_SKIP() << "no " << dir;
  const CsrMatrix ccc = read_matrix_market_file((dir / "ccc_G_04.mtx").string());
  EXPECT_EQ(ccc.rows, 384);
  EXPECT_EQ(ccc.nnz(), 1152);
  const CsrMatrix debr = read_matrix_market_file((dir / "debr_G_06.mtx").string());
  EXPECT_EQ(debr.nnz(), 1018);
  const CsrMatrix del = read_matrix_market_file((dir / "delaunay_n10.mtx").string());
  EXPECT_EQ(del.nnz(), 6112);
  EXPECT_TRUE(symmetric(del));
}
