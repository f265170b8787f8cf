// The MPI handles nbrcoll holds: every communicator, request, datatype,
// group, attribute key and error handler it makes through PMPI_ is counted
// where it is made and where it is freed, so that made minus freed is what
// it holds now. The run report prints it at MPI_Finalize (report_text.h),
// and tests read it mid-run (held()): a soak of many calls and graphs must
// end holding what it held after its first ones.
//
// Requests counted: the persistent ones nbrcoll keeps (the host fast path's
// kept messages, a persistent call's carrier and trigger), the generalized
// request of each nonblocking call until the MPI frees it (its free
// callback), an idup's request until it completes, and the point-to-point
// requests a call dropped before they completed (transport/requests.h:
// none, unless something lost track of one). A call's own point-to-point
// requests, which its completion frees, are not counted one by one.
//
// Always on, with no lock: an atomic add where a handle is made or freed
// (graph creation, a kept set built, a nonblocking call's request), never
// per message. No MPI here.
#pragma once

#include <atomic>
#include <cstdint>

namespace nbrcoll::report {

enum class Handle : unsigned { kCommunicator, kRequest, kDatatype, kGroup, kKeyval, kErrhandler };
inline constexpr unsigned kHandleKinds = 6;

namespace detail {
inline std::atomic<std::int64_t> g_held[kHandleKinds];
}  // namespace detail

inline void note_made(Handle h, std::int64_t n = 1) {
  detail::g_held[static_cast<unsigned>(h)].fetch_add(n, std::memory_order_relaxed);
}
inline void note_freed(Handle h, std::int64_t n = 1) {
  detail::g_held[static_cast<unsigned>(h)].fetch_sub(n, std::memory_order_relaxed);
}

// What this process holds now, by kind (negative only if a free were
// counted twice).
struct HeldHandles {
  std::int64_t count[kHandleKinds] = {};
  friend bool operator==(const HeldHandles&, const HeldHandles&) = default;
};
inline HeldHandles held() {
  HeldHandles h;
  for (unsigned k = 0; k < kHandleKinds; ++k) h.count[k] = detail::g_held[k].load(std::memory_order_relaxed);
  return h;
}

// "communicators", "requests", ...: the report's words for each kind.
inline constexpr const char* kHandleNames[kHandleKinds] = {"communicators", "requests",       "datatypes",
                                                           "groups",        "attribute keys", "error handlers"};

}  // namespace nbrcoll::report
