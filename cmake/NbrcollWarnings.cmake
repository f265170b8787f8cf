# Warnings for our own targets (not for third-party code).
add_library(nbrcoll_warnings INTERFACE)
target_compile_options(nbrcoll_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
