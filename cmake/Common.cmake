# What the project's build and the benchmark's (bench/CMakeLists.txt) share: the third-party
# headers, the warnings, and the one place that sets NODE_PATH for Debian's emcc.

# Third-party headers, all from Debian packages. The WASM build must not see /usr/include as a
# whole (it would shadow Emscripten's libc), so each library is exposed through a symbolic
# link in a private folder of the build tree.
set(AP_THIRDPARTY_INCLUDE "${CMAKE_BINARY_DIR}/thirdparty/include")
file(MAKE_DIRECTORY "${AP_THIRDPARTY_INCLUDE}")
foreach(lib IN ITEMS eigen3/Eigen simde nlohmann catch2)
  get_filename_component(name "${lib}" NAME)
  if(NOT EXISTS "/usr/include/${lib}")
    message(FATAL_ERROR "/usr/include/${lib} is missing: run scripts/setup.sh (as root) first")
  endif()
  if(NOT EXISTS "${AP_THIRDPARTY_INCLUDE}/${name}")
    file(CREATE_LINK "/usr/include/${lib}" "${AP_THIRDPARTY_INCLUDE}/${name}" SYMBOLIC)
  endif()
endforeach()

# A compiler cache where there is one (Debian's ccache, which scripts/setup.sh installs): a machine
# that has built before compiles only what changed, in every tree and every clone (the paths
# under the source folder are hashed relative to it). Depend mode: a miss compiles once, with
# no extra preprocessor run, so a first build costs no more than without the cache.
# Emscripten's em++ hands its clang to the cache (EM_COMPILER_WRAPPER). -DAP_CCACHE=OFF turns
# it off; a launcher given on the command line wins.
option(AP_CCACHE "Compile through ccache when it is installed" ON)
find_program(AP_CCACHE_PROGRAM ccache)
if(AP_CCACHE AND AP_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(ap_ccache_env CCACHE_DEPEND=1 "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}" CCACHE_NOHASHDIR=1)
  if(EMSCRIPTEN)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;${ap_ccache_env};EM_COMPILER_WRAPPER=${AP_CCACHE_PROGRAM}")
  else()
    set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;${ap_ccache_env};${AP_CCACHE_PROGRAM}")
  endif()
  string(REPLACE ";" " " ap_ccache_env "${ap_ccache_env}")
  message(STATUS "compiler cache: ${AP_CCACHE_PROGRAM} (${ap_ccache_env})")
endif()

# Code that never throws, built without exceptions in WebAssembly (see CMakeLists.txt).
add_library(ap_no_exceptions INTERFACE)
if(EMSCRIPTEN)
  target_compile_options(ap_no_exceptions INTERFACE -fno-exceptions)
endif()
add_library(ap_warnings INTERFACE)
target_compile_options(ap_warnings INTERFACE -Wall -Wextra)

add_library(ap_thirdparty INTERFACE)
target_include_directories(ap_thirdparty SYSTEM INTERFACE "${AP_THIRDPARTY_INCLUDE}")
target_compile_definitions(ap_thirdparty INTERFACE EIGEN_MPL2_ONLY)

if(EMSCRIPTEN)
  # Debian's emcc needs Debian's node modules (acorn) for the JS optimizer it runs when it
  # links; nothing else does (configuring and compiling work without). Every link goes
  # through this launcher, so NODE_PATH is set here and nowhere else.
  set(CMAKE_CXX_LINKER_LAUNCHER "${CMAKE_COMMAND};-E;env;NODE_PATH=/usr/share/nodejs")
endif()
