#include "state/creation_line.h"

#include <mutex>
#include <new>

#include "report/held_handles.h"
#include "state/shared_comm.h"
#include "state/tag_blocks.h"
#include "support/log.h"
#include "support/mpi_identity.h"

namespace nbrcoll {

namespace {

std::mutex g_line_mutex;  // every line's fields

int delete_line(MPI_Comm, int, void* value, void*) {
  delete static_cast<CreationLine*>(value);
  return MPI_SUCCESS;
}

// MPI_Comm_dup (and its variants) copying a line: the duplicate's line
// takes its serials from the line's duplicates' range (line_serials.h);
// none left, no line (the duplicate's first graph makes one).
int copy_line(MPI_Comm, int, void*, void* value_in, void* value_out, int* flag) {
  *flag = 0;
  CreationLine child;
  {
    const std::lock_guard<std::mutex> lock(g_line_mutex);
    child = take_for_duplicate(*static_cast<CreationLine*>(value_in));
  }
  if (child.next_serial >= child.end_serial) return MPI_SUCCESS;
  auto* line = new (std::nothrow) CreationLine(child);
  if (line == nullptr) return MPI_SUCCESS;
  log(LogLevel::kTrace,
      "a duplicated communicator's creation line: serials %lld-%lld its own, %lld-%lld for its duplicates",
      static_cast<long long>(line->next_serial), static_cast<long long>(line->end_serial - 1),
      static_cast<long long>(line->kids_begin), static_cast<long long>(line->kids_end - 1));
  *static_cast<void**>(value_out) = line;
  *flag = 1;
  return MPI_SUCCESS;
}

// The parents' lines' key (created once; never freed: lines may outlive
// any one creation).
int line_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(copy_line, delete_line, &k, nullptr) != MPI_SUCCESS)
      return static_cast<int>(MPI_KEYVAL_INVALID);
    report::note_made(report::Handle::kKeyval);
    return k;
  }();
  return keyval;
}

}  // namespace

void open_world_line() {
  if (!mpi_threads_concurrent() || shared_comm() == MPI_COMM_NULL) return;
  const int keyval = line_keyval();
  if (keyval == MPI_KEYVAL_INVALID) return;
  auto* line = new (std::nothrow) CreationLine(line_over(agreed_serials(), graph_serials(tag_upper_bound())));
  if (line == nullptr) return;
  // Where it cannot be set, MPI_COMM_WORLD's first graph makes a line without serials.
  if (PMPI_Comm_set_attr(MPI_COMM_WORLD, keyval, line) != MPI_SUCCESS) delete line;
}

CreationLine* creation_line(MPI_Comm parent) {
  if (!mpi_threads_concurrent()) {
    static CreationLine process = [] {
      CreationLine l;
      l.next_serial = agreed_serials();
      l.end_serial = graph_serials(tag_upper_bound());
      return l;
    }();
    return &process;
  }
  const int keyval = line_keyval();
  if (parent == MPI_COMM_NULL || keyval == MPI_KEYVAL_INVALID) return nullptr;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(parent, keyval, &value, &found) != MPI_SUCCESS) return nullptr;
  if (found != 0) return static_cast<CreationLine*>(value);
  // Made by the parent's first creation: creations from one communicator
  // never run at once (MPI orders its collectives), so no other thread
  // makes this one.
  auto* line = new CreationLine;
  if (PMPI_Comm_set_attr(parent, keyval, line) != MPI_SUCCESS) {
    delete line;
    return nullptr;
  }
  return line;
}

std::int64_t draw_serial(CreationLine& line, bool peek) {
  const std::lock_guard<std::mutex> lock(g_line_mutex);
  if (line.next_serial >= line.end_serial) return -1;
  return peek ? line.next_serial : line.next_serial++;
}

bool wants_serials(const CreationLine* line) {
  const std::lock_guard<std::mutex> lock(g_line_mutex);
  return line != nullptr && mpi_threads_concurrent() && line->next_serial >= line->end_serial;
}

void reserve_serials(CreationLine& line, std::int64_t first) {
  const std::lock_guard<std::mutex> lock(g_line_mutex);
  line.next_serial = first;
  line.end_serial = first + kLineSerials;
}

}  // namespace nbrcoll
