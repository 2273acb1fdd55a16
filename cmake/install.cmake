# `cmake --install`: the engine and reader libraries, the public headers, the `tumble` executable,
# a CMake package (find_package(tumble): tumble::tumble, tumble::io) and a pkg-config file.
include(CMakePackageConfigHelpers)

# the commit this build is from, for `tumble --version`; re-read when HEAD moves
find_package(Git QUIET)
set(TUMBLE_COMMIT "unknown")
if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE TUMBLE_COMMIT
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path HEAD --symbolic-full-name HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE _git_paths
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" _git_paths "${_git_paths}")
  list(GET _git_paths 0 _git_head)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${_git_head})
  list(LENGTH _git_paths _n)
  if(_n GREATER 1)
    list(GET _git_paths 1 _git_ref)
    if(EXISTS ${CMAKE_SOURCE_DIR}/.git/${_git_ref})
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                   ${CMAKE_SOURCE_DIR}/.git/${_git_ref})
    endif()
  endif()
endif()
target_compile_definitions(tumble_cli PRIVATE TUMBLE_COMMIT="${TUMBLE_COMMIT}")

install(TARGETS tumble tumble_io EXPORT tumbleTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tumble_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/tumble ${CMAKE_BINARY_DIR}/include/tumble
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tumbleTargets NAMESPACE tumble:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tumble)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tumbleConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/tumbleConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tumble)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tumbleConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tumbleConfig.cmake ${CMAKE_BINARY_DIR}/tumbleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tumble)

# pkg-config: the static libraries' own dependencies are in Libs, so that a plain
# `pkg-config --libs tumble` links
set(TUMBLE_PC_LIBS "-fopenmp -lm -lstdc++")
if(TUMBLE_CUDA)
  string(APPEND TUMBLE_PC_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcusolver -lcublas -lcudart")
endif()
file(RELATIVE_PATH TUMBLE_PC_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/tumble.pc.in ${CMAKE_BINARY_DIR}/tumble.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tumble.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
