// What nbrcoll's Fortran entry points (generated from calls.tbl by
// gen_entries.py) use: the error code, LOGICAL values and, per MPI, how that
// MPI's own Fortran binding recognises its sentinels and converts handles,
// requests and statuses. Each wrapper calls nbrcoll's C entry point, so a
// Fortran call behaves as the same call from C.
//
// CMake defines NBRCOLL_FORTRAN_TRUE (the MPI's Fortran .TRUE.: Open MPI's
// configured value, else the Fortran compiler's) and one of
// NBRCOLL_FORTRAN_OPENMPI / NBRCOLL_FORTRAN_MPICH.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstddef>
#include <new>
#include <type_traits>

#include "call/pmpi_handoff.h"

#ifndef NBRCOLL_FORTRAN_TRUE
#error "NBRCOLL_FORTRAN_TRUE (the MPI's Fortran .TRUE.) comes from src/entry/fortran/CMakeLists.txt"
#endif

#if defined(NBRCOLL_FORTRAN_OPENMPI)
// Open MPI's Fortran sentinels are the addresses of common-block symbols; it
// installs the header that names them for its Fortran compiler's mangling
// and says how its bindings compare them (OMPI_IS_FORTRAN_BOTTOM(addr), ...).
extern "C" {
#include <mpif-c-constants-decl.h>
// The empty status Open MPI's bindings return for a count of 0.
extern MPI_Status ompi_status_empty;
}
#endif

namespace nbrcoll::fortran {

// Both MPIs' bindings hand INTEGER arrays (counts, graph lists, indices) to
// C as they are where MPI_Fint is int; configuration requires it.
static_assert(sizeof(MPI_Fint) == sizeof(int), "the Fortran entry points need MPI_Fint == int");

inline void set_ierr(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

inline MPI_Fint to_logical(int c) {
  return c != 0 ? static_cast<MPI_Fint>(NBRCOLL_FORTRAN_TRUE) : 0;
}

// A binding that cannot allocate its scratch: MPI_ERR_NO_MEM through
// MPI_COMM_WORLD's error handler, as Open MPI's own.
inline void no_memory(MPI_Fint* ierr) {
  PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
  set_ierr(ierr, MPI_ERR_NO_MEM);
}

// n elements, on the stack up to kLocal; a negative n is an allocation that
// fails (Open MPI's bindings pass count * size to malloc).
template <class T, std::size_t kLocal = 8>
class Scratch {
 public:
  explicit Scratch(MPI_Fint n) {
    if (n < 0) return;
    if (static_cast<std::size_t>(n) <= kLocal) {
      data_ = local_;
      return;
    }
    heap_ = new (std::nothrow) T[static_cast<std::size_t>(n)]();
    data_ = heap_;
  }
  ~Scratch() { delete[] heap_; }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  bool ok() const { return data_ != nullptr; }
  T* data() { return data_; }

 private:
  T local_[kLocal]{};
  T* heap_ = nullptr;
  T* data_ = nullptr;
};

#if defined(NBRCOLL_FORTRAN_OPENMPI)
// ---- Open MPI (ompi/mpi/fortran/mpif-h, which its use mpi_f08 calls too) ----
namespace ompi {

// Open MPI hands a LOGICAL to C as it is where it is a C int with .TRUE. == 1.
constexpr bool kLogicalIsInt = NBRCOLL_FORTRAN_TRUE == 1;
constexpr int kStatusInts = sizeof(MPI_Status) / sizeof(int);

inline void* send_buffer(void* b) {
  if (OMPI_IS_FORTRAN_IN_PLACE(b)) b = MPI_IN_PLACE;
  return OMPI_IS_FORTRAN_BOTTOM(b) ? MPI_BOTTOM : b;
}
inline void* recv_buffer(void* b) {
  return OMPI_IS_FORTRAN_BOTTOM(b) ? MPI_BOTTOM : b;
}

inline const int* weights(MPI_Fint* w) {
  if (OMPI_IS_FORTRAN_UNWEIGHTED(w)) return MPI_UNWEIGHTED;
  if (OMPI_IS_FORTRAN_WEIGHTS_EMPTY(w)) return MPI_WEIGHTS_EMPTY;
  return w;
}

inline int from_logical(MPI_Fint v) {
  if constexpr (kLogicalIsInt) return v;
  return v == 0 ? 0 : 1;
}

// A LOGICAL array in (MPI_Cart_create's periods, MPI_Cart_sub's
// remain_dims), as OMPI_ARRAY_LOGICAL_2_INT: as it is where a LOGICAL is a C
// int with .TRUE. == 1, else each element converted into scratch.
class LogicalsIn {
 public:
  LogicalsIn(MPI_Fint* f, MPI_Fint n) : f_(f), c_(kLogicalIsInt ? 0 : n) {
    if constexpr (!kLogicalIsInt) {
      for (MPI_Fint i = 0; c_.ok() && i < n; ++i) c_.data()[i] = from_logical(f[i]);
    }
  }
  bool ok() const { return c_.ok(); }
  const int* data() {
    if constexpr (kLogicalIsInt) return reinterpret_cast<const int*>(f_);
    return c_.data();
  }

 private:
  MPI_Fint* f_;
  Scratch<int> c_;
};

// How many LOGICALs MPI_Cart_sub's remain_dims holds: asked of the
// communicator (PMPI_Cartdim_get) only where they are converted, as Open
// MPI's binding does; its error, which the binding returns at once.
inline int logicals_length(MPI_Comm comm, int& n) {
  if constexpr (kLogicalIsInt) return MPI_SUCCESS;
  return PMPI_Cartdim_get(comm, &n);
}

inline bool status_ignored(const MPI_Fint* s) {
  return OMPI_IS_FORTRAN_STATUS_IGNORE(s);
}

inline void put_status(const MPI_Status& c, MPI_Fint* f) {
  if (!OMPI_IS_FORTRAN_STATUS_IGNORE(f)) PMPI_Status_c2f(&c, f);
}

// As Open MPI: written even where the caller passed MPI_STATUS_IGNORE.
inline void put_empty_status(MPI_Fint* f) {
  PMPI_Status_c2f(&ompi_status_empty, f);
}

// The v and w collectives' bindings ask the communicator's size first (their
// error handler may run for an invalid handle). True for a valid one.
inline bool ask_size(MPI_Comm comm) {
  int size = 0;
  return PMPI_Comm_size(comm, &size) == MPI_SUCCESS;
}

enum Degree { kInDegree, kOutDegree };

// An alltoallw's array of datatypes, one per neighbour on one side (send
// types: the out-degree, receive types: the in-degree), converted by
// PMPI_Type_f2c. Open MPI 4.1's own binding converts as many as the
// communicator has processes, reading past the array where the degree is
// smaller and leaving entries unset where it is larger (duplicate edges);
// upstream converts the degree's since 2026 (open-mpi/ompi#13790), and so
// does this. No communicator (MPI_COMM_NULL: it was invalid) or none with
// a topology: nothing to convert, the C call reports the error.
class Datatypes {
 public:
  Datatypes(MPI_Comm comm, const MPI_Fint* f, Degree side) : n_(degree(comm, side)), c_(n_) {
    if (!c_.ok()) return;
    for (int i = 0; i < n_; ++i) c_.data()[i] = PMPI_Type_f2c(f[i]);
  }
  bool ok() const { return c_.ok(); }
  MPI_Datatype* data() { return c_.data(); }

 private:
  static int degree(MPI_Comm comm, Degree side) {
    int in = 0;
    int out = 0;
    if (comm == MPI_COMM_NULL || !topology_degrees(comm, in, out)) return 0;
    return side == kInDegree ? in : out;
  }
  int n_;
  Scratch<MPI_Datatype> c_;
};

// A LOGICAL out: the C call writes it in place where it is a C int.
class LogicalOut {
 public:
  explicit LogicalOut(MPI_Fint* f) : f_(f), c_(from_logical(*f)) {}
  int* c() {
    if constexpr (kLogicalIsInt) return reinterpret_cast<int*>(f_);
    return &c_;
  }
  void put() {
    if constexpr (!kLogicalIsInt) *f_ = to_logical(c_);
  }

 private:
  MPI_Fint* f_;
  int c_;
};

class Requests {
 public:
  Requests(MPI_Fint n, const MPI_Fint* f) : n_(n), c_(n) {
    if (!c_.ok()) return;
    for (int i = 0; i < n; ++i) c_.data()[i] = PMPI_Request_f2c(f[i]);
  }
  bool ok() const { return c_.ok(); }
  MPI_Request* data() { return c_.data(); }
  void put(MPI_Fint* f, int i) { f[i] = PMPI_Request_c2f(c_.data()[i]); }
  void put_all(MPI_Fint* f) {
    for (int i = 0; i < n_; ++i) put(f, i);
  }

 private:
  MPI_Fint n_;
  Scratch<MPI_Request> c_;
};

class Statuses {
 public:
  explicit Statuses(MPI_Fint n) : c_(n) {}
  bool ok() const { return c_.ok(); }
  MPI_Status* data() { return c_.data(); }
  // The first n; Open MPI compares &f[i] (an INTEGER, not a status, further
  // on) with MPI_STATUS_IGNORE, and so does this.
  void put(MPI_Fint* f, int n) {
    if (OMPI_IS_FORTRAN_STATUSES_IGNORE(f)) return;
    for (int i = 0; i < n; ++i) {
      if (!OMPI_IS_FORTRAN_STATUS_IGNORE(&f[i]))
        PMPI_Status_c2f(&c_.data()[i], &f[static_cast<std::ptrdiff_t>(i) * kStatusInts]);
    }
  }

 private:
  Scratch<MPI_Status> c_;
};

}  // namespace ompi

#elif defined(NBRCOLL_FORTRAN_MPICH)
// ---- MPICH (src/binding/fortran: mpif_h, use_mpi_f08) ------------------------
// MPICH's handles and requests are C ints and its TYPE(MPI_Status) is the C
// MPI_Status: arguments go to C as they are.
static_assert(std::is_same_v<MPI_Comm, MPI_Fint> && std::is_same_v<MPI_Request, MPI_Fint> &&
                  std::is_same_v<MPI_Datatype, MPI_Fint>,
              "MPICH's handles are INTEGERs");
static_assert(sizeof(MPI_Status) == sizeof(MPI_F08_status), "MPICH's TYPE(MPI_Status) is its C status");

template <class Handle>
Handle* mpich_handle(MPI_Fint* f) {
  return f;
}

// Symbols of MPICH's Fortran library, looked up in the process as the
// dynamic linker resolves MPICH's own references to them: only a program
// that has that library can call these entry points.
template <class T>
T* fortran_symbol(const char* name) {
  return static_cast<T*>(dlsym(RTLD_DEFAULT, name));
}

namespace mpich_mpif {

// The addresses of mpif.h's sentinels, which MPICH's mpirinitf_ (a Fortran
// routine that sees the common blocks) records on the first call.
struct Symbols {
  int* need_init = fortran_symbol<int>("MPIR_F_NeedInit");
  void (*initf)() = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "mpirinitf_"));
  void* const* bottom = fortran_symbol<void* const>("MPIR_F_MPI_BOTTOM");
  void* const* unweighted = fortran_symbol<void* const>("MPIR_F_MPI_UNWEIGHTED");
  void* const* weights_empty = fortran_symbol<void* const>("MPIR_F_MPI_WEIGHTS_EMPTY");
};

inline const Symbols& symbols() {
  static const Symbols s;
  return s;
}

inline void prologue() {
  const Symbols& s = symbols();
  if (s.need_init != nullptr && *s.need_init != 0 && s.initf != nullptr) {
    s.initf();
    *s.need_init = 0;
  }
}

inline bool is(const void* p, void* const* sentinel) {
  return sentinel != nullptr && p == *sentinel;
}

inline void* buffer(void* b) {
  return is(b, symbols().bottom) ? MPI_BOTTOM : b;
}

inline const int* weights(MPI_Fint* w) {
  if (is(w, symbols().unweighted)) return MPI_UNWEIGHTED;
  if (is(w, symbols().weights_empty)) return MPI_WEIGHTS_EMPTY;
  return w;
}

// MPI_F_STATUS(ES)_IGNORE: mpi.h's, set by mpirinitf_ too.
inline MPI_Status* status(MPI_Fint* s) {
  return s == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : reinterpret_cast<MPI_Status*>(s);
}
inline MPI_Status* statuses(MPI_Fint* s) {
  return s == MPI_F_STATUSES_IGNORE ? MPI_STATUSES_IGNORE : reinterpret_cast<MPI_Status*>(s);
}

}  // namespace mpich_mpif

namespace mpich_f08 {

// MPICH's MPI_Cart_sub routine asks the communicator's dimensions before
// the call (to size its copy of remain_dims) and ignores the answer; an
// invalid communicator meets its error handler there first.
inline void ask_cart_dims(MPI_Comm comm) {
  int n = 0;
  PMPI_Cartdim_get(comm, &n);
}

// MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE of use mpi_f08 are these objects
// (mpi.h declares them; MPICH's routines find them the same way).
inline MPI_Status* status(MPI_Fint* s) {
  if (static_cast<void*>(s) == static_cast<void*>(&MPIR_F08_MPI_STATUS_IGNORE_OBJ)) return MPI_STATUS_IGNORE;
  return reinterpret_cast<MPI_Status*>(s);
}
inline MPI_Status* statuses(MPI_Fint* s) {
  if (static_cast<void*>(s) == static_cast<void*>(MPIR_F08_MPI_STATUSES_IGNORE_OBJ)) return MPI_STATUSES_IGNORE;
  return reinterpret_cast<MPI_Status*>(s);
}

// MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY of use mpi_f08 are variables of
// MPICH's Fortran module mpi_f08_link_constants (gfortran's names below);
// MPICH's routines replace them by the C values its library keeps in
// MPIR_C_MPI_UNWEIGHTED / MPIR_C_MPI_WEIGHTS_EMPTY.
struct WeightSymbols {
  const void* unweighted = fortran_symbol<const void>("__mpi_f08_link_constants_MOD_mpi_unweighted");
  const void* empty = fortran_symbol<const void>("__mpi_f08_link_constants_MOD_mpi_weights_empty");
  int* const* c_unweighted = fortran_symbol<int* const>("MPIR_C_MPI_UNWEIGHTED");
  int* const* c_empty = fortran_symbol<int* const>("MPIR_C_MPI_WEIGHTS_EMPTY");
};

inline const int* weights(MPI_Fint* w) {
  static const WeightSymbols symbols;
  if (w == nullptr) return w;
  if (w == symbols.unweighted && symbols.c_unweighted != nullptr) return *symbols.c_unweighted;
  if (w == symbols.empty && symbols.c_empty != nullptr) return *symbols.c_empty;
  return w;
}

}  // namespace mpich_f08

#else
#error "NBRCOLL_FORTRAN_OPENMPI or NBRCOLL_FORTRAN_MPICH: which MPI's bindings to follow"
#endif

}  // namespace nbrcoll::fortran
