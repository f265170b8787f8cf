#include "call/datatype.h"

#include <vector>

#include "report/held_handles.h"

namespace nbrcoll {

namespace {

// True when the type's data is its extent's bytes in memory order. We only
// trust the constructors whose order we can see: predefined types, dups and
// contiguous repetitions of such types. A struct with fields in reverse order
// has no gap either but a different byte order, so it goes to pack/unpack.
bool gapless_in_order(MPI_Datatype type, int depth) {
  if (depth > 16) return false;
  int ni = 0;
  int na = 0;
  int nd = 0;
  int combiner = 0;
  if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return false;
  MPI_Count size = 0;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  PMPI_Type_size_x(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  if (lb != 0 || static_cast<MPI_Count>(extent) != size) return false;
  if (combiner == MPI_COMBINER_NAMED) return true;
  if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) return false;
  std::vector<int> ints(static_cast<std::size_t>(ni));
  std::vector<MPI_Aint> addrs(static_cast<std::size_t>(na));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(nd));
  if (PMPI_Type_get_contents(type, ni, na, nd, ints.data(), addrs.data(), types.data()) != MPI_SUCCESS) return false;
  const MPI_Datatype inner = types.at(0);
  const bool ok = gapless_in_order(inner, depth + 1);
  int ni2 = 0;
  int na2 = 0;
  int nd2 = 0;
  int inner_combiner = 0;
  PMPI_Type_get_envelope(inner, &ni2, &na2, &nd2, &inner_combiner);
  // A derived type MPI_Type_get_contents returns is a new handle to free.
  if (inner_combiner != MPI_COMBINER_NAMED) {
    report::note_made(report::Handle::kDatatype);
    if (PMPI_Type_free(&types[0]) == MPI_SUCCESS) report::note_freed(report::Handle::kDatatype);
  }
  return ok;
}

int describe_uncached(MPI_Datatype type, TypeLayout& out) {
  // MPI_Type_size_x: a type of more than INT_MAX bytes has no int size
  // (MPI_Type_size gives MPI_UNDEFINED).
  MPI_Count size = 0;
  int rc = PMPI_Type_size_x(type, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (size < 0) return MPI_ERR_TYPE;
  MPI_Aint lb = 0;
  rc = PMPI_Type_get_extent(type, &lb, &out.extent);
  if (rc != MPI_SUCCESS) return rc;
  out.size = static_cast<std::uint64_t>(size);
  out.in_place = gapless_in_order(type, 0);
  return MPI_SUCCESS;
}

// The common predefined types, described once: they are never freed, so
// their layouts hold for the whole run, and a call with one of them makes
// no MPI query (five per type otherwise). A derived type is described at
// every call: a freed handle may come back as another type.
struct NamedLayout {
  MPI_Datatype type;
  TypeLayout layout;
};
const std::vector<NamedLayout>& named_layouts() {
  static const std::vector<NamedLayout> table = [] {
    const MPI_Datatype named[] = {MPI_BYTE,          MPI_DOUBLE,
                                  MPI_INT,           MPI_FLOAT,
                                  MPI_CHAR,          MPI_LONG,
                                  MPI_LONG_LONG,     MPI_UNSIGNED,
                                  MPI_UNSIGNED_CHAR, MPI_SIGNED_CHAR,
                                  MPI_SHORT,         MPI_UNSIGNED_SHORT,
                                  MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG,
                                  MPI_INT8_T,        MPI_INT16_T,
                                  MPI_INT32_T,       MPI_INT64_T,
                                  MPI_UINT8_T,       MPI_UINT16_T,
                                  MPI_UINT32_T,      MPI_UINT64_T};
    std::vector<NamedLayout> t;
    for (const MPI_Datatype type : named) {
      TypeLayout layout;
      if (type != MPI_DATATYPE_NULL && describe_uncached(type, layout) == MPI_SUCCESS) t.push_back({type, layout});
    }
    return t;
  }();
  return table;
}

}  // namespace

int describe_type(MPI_Datatype type, TypeLayout& out) {
  for (const NamedLayout& n : named_layouts()) {
    if (n.type == type) {
      out = n.layout;
      return MPI_SUCCESS;
    }
  }
  return describe_uncached(type, out);
}

}  // namespace nbrcoll
