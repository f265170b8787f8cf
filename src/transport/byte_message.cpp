#include "transport/byte_message.h"

namespace nbrcoll {

void ByteMessage::make_large(std::uint64_t bytes) {
  constexpr std::uint64_t kUnit = std::uint64_t{1} << 30;
  MPI_Datatype unit = MPI_DATATYPE_NULL;
  if (PMPI_Type_contiguous(static_cast<int>(kUnit), MPI_BYTE, &unit) == MPI_SUCCESS)
    report::note_made(report::Handle::kDatatype);
  const int lengths[2] = {static_cast<int>(bytes / kUnit), static_cast<int>(bytes % kUnit)};
  const MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(bytes / kUnit * kUnit)};
  const MPI_Datatype types[2] = {unit, MPI_BYTE};
  if (PMPI_Type_create_struct(2, lengths, displs, types, &type_) == MPI_SUCCESS)
    report::note_made(report::Handle::kDatatype);
  PMPI_Type_commit(&type_);
  if (PMPI_Type_free(&unit) == MPI_SUCCESS) report::note_freed(report::Handle::kDatatype);
  count_ = 1;
}

}  // namespace nbrcoll
