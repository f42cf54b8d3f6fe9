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
