# Runs the desktop app under Xvfb to write a screenshot, then checks the PNG; one CTest for both.
#
#   cmake -DXVFB_RUN=... -DAPP=... -DPYTHON=... -DCHECK=check_screenshot.py -DOUT=OUT.png
#         -P run_screenshot.cmake
foreach(var XVFB_RUN APP PYTHON CHECK OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_screenshot.cmake: -D${var}=... is required")
  endif()
endforeach()

if(NOT EXISTS "${XVFB_RUN}")
  message(FATAL_ERROR "FAIL: ${XVFB_RUN} is missing: apt-get install xvfb (scripts/setup.sh does)")
endif()
file(REMOVE "${OUT}")
execute_process(
  COMMAND "${XVFB_RUN}" -a -s "-screen 0 1400x900x24"
          "${APP}" --screenshot "${OUT}" --frames 6 --size 1280x800 --preset padded_batch --step 5
  RESULT_VARIABLE status
  TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "FAIL: attention-playground --screenshot under xvfb-run: ${status}")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "FAIL: attention-playground exited 0 but wrote no ${OUT}")
endif()

execute_process(COMMAND "${PYTHON}" "${CHECK}" "${OUT}" --size 1280x800 RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "FAIL: ${CHECK} found a problem in ${OUT}")
endif()
