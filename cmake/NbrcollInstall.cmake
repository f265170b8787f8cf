# cmake --install: headers, both libraries, a CMake package (nbrcoll::nbrcoll)
# and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nbrcoll DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS nbrcoll EXPORT nbrcollTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The static archive carries every object it needs (see src/CMakeLists.txt).
install(FILES $<TARGET_FILE:nbrcoll_static> DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET nbrcoll-topo)
  install(TARGETS nbrcoll-topo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT nbrcollTargets NAMESPACE nbrcoll:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nbrcoll)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nbrcollConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nbrcollConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nbrcoll)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nbrcollConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nbrcollConfig.cmake ${PROJECT_BINARY_DIR}/nbrcollConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nbrcoll)
configure_file(${PROJECT_SOURCE_DIR}/cmake/nbrcoll.pc.in ${PROJECT_BINARY_DIR}/nbrcoll.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/nbrcoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
