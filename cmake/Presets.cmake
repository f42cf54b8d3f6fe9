# Every preset the playground offers, gathered at build time in ${AP_PRESETS_DIR}:
#   - assets/presets/<name>.json, written by hand, copied as they are;
#   - assets/recipes/<name>.json, lessons whose weights are learned: `attention-cli lesson`
#     trains the recipe's toy task and writes the preset (deterministic; the tests train it
#     again and compare). In the WASM tree the WASM CLI does it, under node.
# Sets AP_PRESETS_DIR, AP_PRESET_PATHS (every preset file there), AP_PRESET_NAMES,
# AP_RECIPE_FILES, and the target ap_presets that makes them.
# AP_PRESETS_FROM (the threaded app's tree): the presets another tree has made, used as they are.
file(GLOB ap_written CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/assets/presets/*.json")
file(GLOB AP_RECIPE_FILES CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/assets/recipes/*.json")
if(AP_PRESETS_FROM)
  set(AP_PRESETS_DIR "${AP_PRESETS_FROM}")
  set(AP_PRESET_PATHS)
  set(AP_PRESET_NAMES)
  foreach(file IN LISTS ap_written AP_RECIPE_FILES)
    get_filename_component(name "${file}" NAME_WE)
    list(APPEND AP_PRESET_PATHS "${AP_PRESETS_DIR}/${name}.json")
    list(APPEND AP_PRESET_NAMES "${name}")
  endforeach()
  add_custom_target(ap_presets)
  return()
endif()
set(AP_PRESETS_DIR "${CMAKE_BINARY_DIR}/presets")
file(MAKE_DIRECTORY "${AP_PRESETS_DIR}")
set(AP_PRESET_PATHS)
set(AP_PRESET_NAMES)
foreach(file IN LISTS ap_written)
  get_filename_component(name "${file}" NAME_WE)
  set(out "${AP_PRESETS_DIR}/${name}.json")
  add_custom_command(OUTPUT "${out}" COMMAND "${CMAKE_COMMAND}" -E copy "${file}" "${out}"
                     DEPENDS "${file}" VERBATIM)
  list(APPEND AP_PRESET_PATHS "${out}")
  list(APPEND AP_PRESET_NAMES "${name}")
endforeach()
if(EMSCRIPTEN)
  set(ap_cli ${CMAKE_CROSSCOMPILING_EMULATOR} "$<TARGET_FILE:attention-cli>")
else()
  set(ap_cli "$<TARGET_FILE:attention-cli>")
endif()
foreach(file IN LISTS AP_RECIPE_FILES)
  get_filename_component(name "${file}" NAME_WE)
  if(name IN_LIST AP_PRESET_NAMES)
    message(FATAL_ERROR "assets/recipes/${name}.json and assets/presets/${name}.json: one name, two presets")
  endif()
  set(out "${AP_PRESETS_DIR}/${name}.json")
  add_custom_command(OUTPUT "${out}" COMMAND ${ap_cli} lesson "${file}" --out "${out}"
                     DEPENDS attention-cli "${file}" COMMENT "Training the lesson ${name}" VERBATIM)
  list(APPEND AP_PRESET_PATHS "${out}")
  list(APPEND AP_PRESET_NAMES "${name}")
endforeach()
add_custom_target(ap_presets ALL DEPENDS ${AP_PRESET_PATHS})
