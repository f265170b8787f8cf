// Is a buffer GPU memory? nbrcoll links no GPU runtime; it asks the one the
// application has already loaded (CUDA driver or HIP), found with
// dlopen(RTLD_NOLOAD). No runtime loaded means no buffer can be device memory.
// The executor moves host bytes only, so calls with device buffers go to PMPI.
#pragma once

namespace nbrcoll {

// True when `p` is memory the CPU cannot address directly (device memory).
// Host, pinned-host and managed memory are all false; so is nullptr.
bool is_device_memory(const void* p);

}  // namespace nbrcoll
