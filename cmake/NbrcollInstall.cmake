# cmake --install: headers, both libraries, a CMake package (nbrcoll::nbrcoll)
# and a pkg-config file. NBRCOLL_PACKAGE is nbrcoll for Open MPI, nbrcoll-mpich
# for MPICH (cmake/NbrcollMpiFlavour.cmake): both can be installed side by side.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nbrcoll DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS nbrcoll EXPORT nbrcollTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The static archive carries every object it needs (see src/CMakeLists.txt).
install(FILES $<TARGET_FILE:nbrcoll_static> DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The tools: nbrcoll-topo, nbrcoll-info, nbrcoll-bench and nbrcoll-selftest (where built), nbrcoll-model, nbrcoll-calibrate.
foreach(_tool nbrcoll-topo nbrcoll-info nbrcoll-bench nbrcoll-selftest nbrcoll-model nbrcoll-calibrate)
  if(TARGET ${_tool})
    install(TARGETS ${_tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(EXPORT nbrcollTargets NAMESPACE nbrcoll:: FILE ${NBRCOLL_PACKAGE}Targets.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${NBRCOLL_PACKAGE})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nbrcollConfig.cmake.in
  ${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}Config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${NBRCOLL_PACKAGE})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}ConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}Config.cmake ${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}ConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${NBRCOLL_PACKAGE})
# pkg-config: the prefix relative to the .pc file (LIBDIR/pkgconfig -> ../..),
# and for static linking (pkg-config --static) what the archive needs: the
# MPI's own pkg-config module, hwloc's, the C++ runtime, libdl.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NBRCOLL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(NBRCOLL_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" _parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(_p ${_parts})
    string(APPEND NBRCOLL_PC_PREFIX "/..")
  endforeach()
endif()
set(NBRCOLL_PC_REQUIRES_PRIVATE "")
if(NBRCOLL_MPI_FLAVOUR STREQUAL "openmpi")
  list(APPEND NBRCOLL_PC_REQUIRES_PRIVATE ompi-c)
elseif(NBRCOLL_MPI_FLAVOUR STREQUAL "mpich")
  list(APPEND NBRCOLL_PC_REQUIRES_PRIVATE mpich)
endif()
if(NBRCOLL_HAVE_HWLOC)
  list(APPEND NBRCOLL_PC_REQUIRES_PRIVATE hwloc)
endif()
string(REPLACE ";" ", " NBRCOLL_PC_REQUIRES_PRIVATE "${NBRCOLL_PC_REQUIRES_PRIVATE}")
set(NBRCOLL_PC_DL "")
if(CMAKE_DL_LIBS)
  set(NBRCOLL_PC_DL "-l${CMAKE_DL_LIBS}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/nbrcoll.pc.in ${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/${NBRCOLL_PACKAGE}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
