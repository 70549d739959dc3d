# Install rules: headers, the library, exported CMake targets with a version file, and
# a pkg-config file, so `find_package(quire)` and `pkg-config quire` both work.
include(CMakePackageConfigHelpers)

install(TARGETS quire EXPORT quireTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT quireTargets NAMESPACE quire:: FILE quireTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quire)
configure_package_config_file(cmake/quireConfig.cmake.in
  ${PROJECT_BINARY_DIR}/quireConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quire)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/quireConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/quireConfig.cmake
              ${PROJECT_BINARY_DIR}/quireConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/quire)

if(BUILD_SHARED_LIBS)
  set(QUIRE_PC_DEPENDENCY_LIBS "")
else()
  set(QUIRE_PC_DEPENDENCY_LIBS "-lasmjit -lcpuinfo -lpthread")
endif()
# The .pc file finds the prefix relative to where it is installed, so it stays right
# after `cmake --install --prefix` elsewhere.
file(RELATIVE_PATH QUIRE_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" QUIRE_PC_TO_PREFIX "${QUIRE_PC_TO_PREFIX}")
configure_file(cmake/quire.pc.in ${PROJECT_BINARY_DIR}/quire.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/quire.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
