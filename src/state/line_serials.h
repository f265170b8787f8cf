// How creation lines (creation_line.h) share the serials drawn without
// agreement, where a line's serials are handed down to the lines of its
// communicator's duplicates. Pure; unit-tested.
//
// A line holds two ranges: its own graphs draw from the first upward, and
// each duplicate of its communicator takes a quarter of what is left of the
// second, from the top, split the same way again for its own duplicates.
// A line's own range is a quarter of what it holds (at least kLineSerials):
// a communicator whose own run out costs one agreement per kLineSerials
// graphs, but a duplicate that finds none left costs one for its first
// graph, and real codes make many duplicates, each with few graphs
// (DOLFINx: eight or more duplicates of MPI_COMM_WORLD, and four of one of
// them, one to six graphs each).
// Both MPIs make every rank duplicate one communicator in the same order,
// so every rank hands out the same ranges; the two ranges never meet, so
// that order need not be the same as the order of the graphs drawn from
// the communicator. A duplicate that finds too few left gets none: its
// first graph agrees and reserves serials (creation_line.h).
#pragma once

#include <algorithm>
#include <cstdint>

namespace nbrcoll {

// Serials a line reserves by agreement, and the fewest a line hands down
// is worth holding as its own.
inline constexpr std::int64_t kLineSerials = 16;

struct LineSerials {
  std::int64_t next_serial = 0;  // its own: [next_serial, end_serial)
  std::int64_t end_serial = 0;
  std::int64_t kids_begin = 0;  // its duplicates': [kids_begin, kids_end), taken from the top
  std::int64_t kids_end = 0;
};

// A line holding [first, end): the lowest quarter (at least kLineSerials)
// its own, the rest its duplicates'.
inline LineSerials line_over(std::int64_t first, std::int64_t end) {
  LineSerials l;
  if (end <= first) return l;
  const std::int64_t size = end - first;
  const std::int64_t middle = first + std::max(std::min(kLineSerials, size), size / 4);
  l.next_serial = first;
  l.end_serial = middle;
  l.kids_begin = middle;
  l.kids_end = end;
  return l;
}

// The line of the next duplicate of `parent`'s communicator, its serials
// taken from parent's duplicates' range; none (an empty line) when a
// quarter of what is left is under 2 * kLineSerials (kLineSerials its own
// and as many for its duplicates).
inline LineSerials take_for_duplicate(LineSerials& parent) {
  const std::int64_t share = (parent.kids_end - parent.kids_begin) / 4;
  if (share < 2 * kLineSerials) return {};
  parent.kids_end -= share;
  return line_over(parent.kids_end, parent.kids_end + share);
}

}  // namespace nbrcoll
