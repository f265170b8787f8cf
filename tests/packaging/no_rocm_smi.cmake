# cmake -DLIB=libnbrcoll.so -DTOOL=nbrcoll-topo -P no_rocm_smi.cmake
# libnbrcoll and nbrcoll-topo must not need librocm_smi64 to load (it is
# opened at run time where present), and must work where it cannot be opened.
execute_process(COMMAND readelf -d ${LIB} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "NEEDED")
  message(FATAL_ERROR "readelf -d ${LIB} failed (rc=${rc}): ${err}")
endif()
if(out MATCHES "rocm_smi")
  message(FATAL_ERROR "${LIB} is linked against ROCm SMI:\n${out}")
endif()
# With the library made unloadable, "auto" still finds a topology and the
# rocm-smi source says why it has none.
set(ENV{NBRCOLL_ROCM_SMI_LIB} /nonexistent/librocm_smi64.so)
execute_process(COMMAND ${TOOL} --topo auto --json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"devices\"")
  message(FATAL_ERROR "nbrcoll-topo --topo auto without ROCm SMI failed (rc=${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${TOOL} --topo rocm-smi RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "ROCm SMI: library not found")
  message(FATAL_ERROR "nbrcoll-topo --topo rocm-smi without ROCm SMI: expected 'library not found', rc=${rc}: ${out}${err}")
endif()
message(STATUS "ok: no NEEDED rocm_smi; auto works and rocm-smi says 'library not found' without it")
