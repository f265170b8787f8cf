// Which GPU runtime has the application loaded, and does it call a pointer
// device memory? nbrcoll links no GPU runtime: it asks the one the
// application has already loaded (CUDA driver or HIP), found among the
// objects the loader holds (no directory search). No runtime loaded means no
// buffer can be device memory. Used to pick the device backend plugin, and
// to recognise device buffers when no plugin is present.
#pragma once

namespace nbrcoll {

enum class GpuRuntime { kNone, kCuda, kHip };

// The runtime loaded in this process (CUDA first when both are).
GpuRuntime loaded_runtime();

// True when `p` is memory the CPU cannot address directly (device memory).
// Host, pinned-host and managed memory are all false; so is nullptr.
bool is_device_memory(const void* p);

}  // namespace nbrcoll
