// plugin.classify: what pointer_info says of each kind of memory. nbrcoll
// moves a buffer itself only when the plugin calls it device memory; host,
// pinned and managed memory must be host (the MPI reads them), and pool and
// VMM memory device memory (else the MPI would be handed memory the CPU
// cannot touch).
#include <string>
#include <vector>

#include "tests/device_checks/copy_check.h"
#include "tools/selftest/context.h"

namespace selftest {

namespace {

// What pointer_info says of an allocation of `kind` ("" when right); a kind
// that is not available here is named in `not_here`.
std::string check_kind(const Context& c, const char* label, MemoryKind& kind, bool device,
                       std::vector<std::string>& checked, std::vector<std::string>& not_here) {
  if (!kind.available()) {
    not_here.push_back(std::string(label) + " (" + kind.why_not + ")");
    return "";
  }
  const std::size_t n = (std::size_t(1) << 20) + 13;
  void* p = nullptr;
  if (kind.allocator.alloc(&p, n) != 0) return kind.allocator.name + " failed: " + *kind.error;
  const std::string error = device ? nbrcoll_check::check_device_pointer_info(c.g, p, n)
                                   : nbrcoll_check::check_host_pointer_info(c.g, p, kind.allocator.name.c_str());
  kind.allocator.free(p);
  checked.push_back(kind.allocator.name + (device ? " (device)" : " (host)"));
  return error.empty() ? "" : kind.allocator.name + ": " + error;
}

Outcome classify(Context& c) {
  const nbrcoll_device_backend* g = c.g;
  std::vector<std::string> checked, not_here;
  auto first = [](std::initializer_list<std::string> errors) {
    for (const std::string& e : errors)
      if (!e.empty()) return e;
    return std::string();
  };
  nbrcoll_check::DeviceAlloc dev(g, (std::size_t(1) << 20) + 13);
  if (dev.p == nullptr) return fail(dev.error);
  std::string error = nbrcoll_check::check_device_pointer_info(g, dev.p, dev.bytes);
  checked.push_back("device_malloc (device)");
  std::vector<unsigned char> heap(4096);
  int on_stack = 0;
  void* pinned = nullptr;
  if (g->host_alloc_pinned(&pinned, 65536) != 0) return fail(std::string("host_alloc_pinned: ") + g->last_error());
  error = first({error, nbrcoll_check::check_host_pointer_info(g, heap.data(), "heap"),
                 nbrcoll_check::check_host_pointer_info(g, &on_stack, "stack"),
                 nbrcoll_check::check_host_pointer_info(g, nullptr, "nullptr"),
                 nbrcoll_check::check_host_pointer_info(g, static_cast<char*>(pinned) + 100, "pinned")});
  g->host_free_pinned(pinned);
  checked.emplace_back("heap, stack, nullptr, pinned (host)");
  error = first({error, check_kind(c, "managed", c.extras.managed, false, checked, not_here),
                 check_kind(c, "pool", c.extras.pool, true, checked, not_here),
                 check_kind(c, "VMM", c.extras.vmm, true, checked, not_here)});
  // A freed and reallocated range must get a new buffer id (the IPC caches key on it).
  nbrcoll_pointer_info before{}, after{};
  void* a = nullptr;
  void* b = nullptr;
  const std::size_t n = std::size_t(2) << 20;
  if (g->device_malloc(&a, n) != 0 || g->pointer_info(a, &before) != 0 || g->device_free(a) != 0 ||
      g->device_malloc(&b, n) != 0 || g->pointer_info(b, &after) != 0)
    return fail(std::string("allocate, free, allocate: ") + g->last_error());
  g->device_free(b);
  if (error.empty() && after.buffer_id == before.buffer_id)
    error = std::string("a reallocated range kept its buffer id (same address: ") + (a == b ? "yes" : "no") + ")";
  checked.push_back(std::string("new buffer id after free and malloc (same address: ") + (a == b ? "yes" : "no") + ")");
  if (!error.empty()) return fail(error);
  std::string detail;
  for (const std::string& s : checked) detail += (detail.empty() ? "" : ", ") + s;
  if (!not_here.empty()) {
    detail += "; not checked:";
    for (const std::string& s : not_here) detail += " " + s + ";";
    detail.pop_back();
  }
  return pass(detail);
}

}  // namespace

void check_memory_kinds(Context& c) {
  c.report->check("plugin.classify", classify(c));
}

}  // namespace selftest
