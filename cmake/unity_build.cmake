# precis_unity_build(TARGET): with -DPRECIS_UNITY_BUILD=ON, compile TARGET's C++ sources
# eight to a compiler run (CMake's unity build). The files of app/, ui/ and engine/ include
# the same heavy headers (nlohmann-json, Qt, the standard library) and instantiate the same
# templates; doing that again for every file was most of the build: 864 of the release
# tree's CPU-seconds for the three libraries against 272 compiled eight at a time, and
# under the sanitizers more (packaging/run-tests.sh turns it on for both its trees). Off by
# default: editing one file then recompiles that file alone.
#
# A file that defines a macro, silences a warning for the rest of its text or compiles
# functions for a particular instruction set (engine/backend's int8 and fp32 kernels) is
# compiled alone even then, so none of that reaches the files that would follow it.
option(PRECIS_UNITY_BUILD "Compile each library's sources eight to a compiler run (faster clean builds)" OFF)

function(precis_unity_build target)
  if(NOT PRECIS_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(src IN LISTS sources)
    if(NOT src MATCHES "\\.cpp$")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${source_dir} OUTPUT_VARIABLE path)
    file(STRINGS ${path} leaks REGEX "^#define |^#pragma GCC diagnostic ignored|__attribute__\\(\\(target\\(")
    if(leaks)
      set_source_files_properties(${src} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()
