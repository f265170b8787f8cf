# NBRCOLL_SANITIZE=address;undefined (or "address,undefined") adds the sanitizers
# to every target. Tests run under mpirun then report from every rank.
set(NBRCOLL_SANITIZE "" CACHE STRING "Sanitizers: address, undefined, or both (comma or semicolon separated)")
if(NBRCOLL_SANITIZE)
  string(REPLACE "," ";" _nbrcoll_san "${NBRCOLL_SANITIZE}")
  list(JOIN _nbrcoll_san "," _nbrcoll_san_flag)
  add_compile_options(-fsanitize=${_nbrcoll_san_flag} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${_nbrcoll_san_flag})
  message(STATUS "nbrcoll: sanitizers on: ${_nbrcoll_san_flag}")
endif()
