# The relaxed-SIMD kernels in WASM (src/core/kernels_wasmrelaxed.cpp), for engines that validate
# relaxed SIMD (Chromium 114+, node 20 with --experimental-wasm-relaxed-simd).
#
# Debian 12's emscripten 3.1.6 compiles with clang 14, whose relaxed-SIMD opcodes are the
# pre-standard ones that no engine accepts, and post-links with binaryen 108, which cannot read
# the final ones. So the relaxed kernels are compiled on their own by Debian's clang-19 (final
# opcodes: f32x4.relaxed_madd is 0xfd 0x85 0x02) into AP_RELAXED_OBJECT, and a module that links
# it (ap_link_relaxed) is linked by emscripten's wasm-ld 14 without binaryen: at -O1 (every
# object is still compiled at -O3; only binaryen's post-link passes are skipped), with BigInt
# integration so that no i64 legalisation pass is needed, and with emscripten's own Python
# reader of the module's metadata (EMCC_READ_METADATA=python) instead of binaryen's.
#
# In a tree whose objects are compiled with -pthread (the threaded app's, AP_WASM_THREADS, or the
# benchmark's, AP_RELAXED_PTHREAD) the object is too: shared memory needs atomics in every object.
#
# Without clang-19 (scripts/setup.sh installs it) AP_RELAXED_OBJECT is empty and only the
# SIMD128 modules are built.
set(AP_RELAXED_OBJECT "")
if(AP_WASM_THREADS)
  set(AP_RELAXED_PTHREAD ON)
endif()
if(EMSCRIPTEN)
  find_program(AP_CLANG19 clang-19)
  if(AP_CLANG19)
    execute_process(COMMAND em-config CACHE OUTPUT_VARIABLE em_cache
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE em_config_failed)
    if(em_config_failed OR NOT EXISTS "${em_cache}/sysroot/include")
      set(em_cache "/usr/share/emscripten/cache")
    endif()
    set(AP_RELAXED_OBJECT "${CMAKE_BINARY_DIR}/relaxed/kernels_wasmrelaxed.o")
    get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)  # also from bench/
    set(core "${root}/src/core")
    set(relaxed_pthread "")
    if(AP_RELAXED_PTHREAD)
      set(relaxed_pthread -pthread)
    endif()
    add_custom_command(
      OUTPUT "${AP_RELAXED_OBJECT}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/relaxed"
      COMMAND "${AP_CLANG19}" --target=wasm32-unknown-emscripten "--sysroot=${em_cache}/sysroot"
              -Xclang -iwithsysroot/include/compat -D_LIBCPP_ABI_VERSION=2 -DEMSCRIPTEN
              -fno-exceptions -mcpu=mvp -mmutable-globals -msign-ext -msimd128 -mrelaxed-simd
              ${relaxed_pthread} -std=c++17 -O3 -DNDEBUG -Wall -Wextra -DAP_KERNELS_PREFER_RELAXED=1
              "-I${root}/src" -c "${core}/kernels_wasmrelaxed.cpp"
              -o "${AP_RELAXED_OBJECT}"
      DEPENDS "${core}/kernels_wasmrelaxed.cpp" "${core}/kernels_wasmsimd.cpp"
              "${core}/kernels.h" "${core}/kernels_exp.h"
      COMMENT "Compiling the relaxed-SIMD kernels with clang-19" VERBATIM)
    add_custom_target(ap_relaxed_object DEPENDS "${AP_RELAXED_OBJECT}")
    message(STATUS "relaxed SIMD: kernels compiled with ${AP_CLANG19}")
  else()
    message(STATUS "relaxed SIMD: no clang-19, so only the SIMD128 modules are built")
  endif()
endif()

# Links the relaxed kernels into `target` (which then prefers them) and links it without
# binaryen, as above.
function(ap_link_relaxed target)
  add_dependencies(${target} ap_relaxed_object)
  target_link_libraries(${target} PRIVATE "${AP_RELAXED_OBJECT}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${AP_RELAXED_OBJECT}")
  target_link_options(${target} PRIVATE -O1 -sWASM_BIGINT=1)
  if(AP_RELAXED_PTHREAD)
    # --strip-all would drop the target_features section too, where emscripten's metadata
    # reader looks for the atomics a -pthread module must have. So the module keeps it, and
    # its function names (620 KiB, which binaryen would have dropped) are removed after the
    # link by LLVM 14's objcopy (Debian's emscripten depends on llvm-14).
    find_program(AP_LLVM_OBJCOPY NAMES llvm-objcopy-14 llvm-objcopy REQUIRED)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${AP_LLVM_OBJCOPY}" --remove-section=name "$<TARGET_FILE_DIR:${target}>/${target}.wasm"
      VERBATIM)
  else()
    target_link_options(${target} PRIVATE -Wl,--strip-all)
  endif()
  set_target_properties(${target} PROPERTIES CXX_LINKER_LAUNCHER
    "${CMAKE_COMMAND};-E;env;NODE_PATH=/usr/share/nodejs;EMCC_READ_METADATA=python")
endfunction()
