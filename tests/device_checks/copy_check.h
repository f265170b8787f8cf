// The copy kernel of a device backend plugin against a reference, through the
// plugin's C ABI only: `size` bytes from src + kCopyGuard + soff to
// dst + kCopyGuard + doff, then the whole destination allocation read back,
// the copied bytes and the guard bytes around them. One piece of code for the
// GoogleTest cases (tests/device) and nbrcoll-selftest.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "transport/device/backend_abi.h"

namespace nbrcoll_check {

constexpr std::size_t kCopyGuard = 64;
constexpr std::size_t kCopyMaxOffset = 17;

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed);

// A device allocation, freed with the object; p stays nullptr (and error
// says why) when the allocation failed.
struct DeviceAlloc {
  DeviceAlloc(const nbrcoll_device_backend* backend, std::size_t n);
  ~DeviceAlloc();
  DeviceAlloc(const DeviceAlloc&) = delete;
  DeviceAlloc& operator=(const DeviceAlloc&) = delete;
  [[nodiscard]] unsigned char* at(std::size_t off) const { return static_cast<unsigned char*>(p) + off; }
  const nbrcoll_device_backend* g;
  void* p = nullptr;
  std::size_t bytes;
  std::string error;
};

class CopyCheck {
 public:
  // Room for copies of up to max_size bytes at any offset mix; `stream` as
  // copy_async takes it (nullptr: the default stream).
  CopyCheck(const nbrcoll_device_backend* g, std::size_t max_size, void* stream);
  // Why the buffers could not be set up ("" when they could).
  [[nodiscard]] const std::string& setup_error() const { return setup_error_; }
  // "" when the copy is byte-exact and every guard byte intact, else the first wrong byte.
  std::string check(std::size_t size, std::size_t doff, std::size_t soff);

 private:
  const nbrcoll_device_backend* g_;
  void* stream_;
  std::size_t n_;
  DeviceAlloc dst_, src_;
  std::vector<unsigned char> src_host_, guard_, out_;
  std::string setup_error_;
};

struct SweepResult {
  long copies = 0;
  std::string first_failure;  // "" when every copy was right
};

// Sizes 0 to 4097 around the kernel's vector and alignment boundaries, every
// dst and src offset 0..kCopyMaxOffset: the cases where a byte-granular head
// or tail goes wrong.
SweepResult sweep_small_copies(const nbrcoll_device_backend* g, void* stream);
// 64 KiB to 33 MiB (several grid-stride rounds of the largest grid) at twelve
// offset mixes.
SweepResult sweep_large_copies(const nbrcoll_device_backend* g, void* stream);

// The table's function pointers that are null, by name ("" when none is).
std::string missing_functions(const nbrcoll_device_backend& g);

// pointer_info on memory of known kinds; "" when the answer is right.
// Device memory from device_malloc: is_device, this device, a buffer id, a
// base and size that hold the range, the same answer inside it.
std::string check_device_pointer_info(const nbrcoll_device_backend* g, const void* p, std::size_t n);
// Host memory (heap, stack, nullptr, pinned, managed): is_device = 0, return 0.
std::string check_host_pointer_info(const nbrcoll_device_backend* g, const void* p, const char* what);

}  // namespace nbrcoll_check
