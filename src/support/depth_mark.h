// A thread's depth of nested steps, raised for a scope. Code that the MPI's
// progress loop calls back from inside an MPI call
// (call/mpi_progress_hook.cpp) reads its own module's depth, so that it
// steps nothing this thread is already stepping further up the stack.
#pragma once

namespace nbrcoll {

class DepthMark {
 public:
  explicit DepthMark(int& depth) : depth_(depth) { ++depth_; }
  ~DepthMark() { --depth_; }
  DepthMark(const DepthMark&) = delete;
  DepthMark& operator=(const DepthMark&) = delete;

 private:
  int& depth_;
};

}  // namespace nbrcoll
