# One client scenario of the official conformance suite, run against tetherctl for CTest:
#   cmake -DSCENARIO=<name> -DTETHERCTL=<path> -DNODE_MODULES=<path> -P run-scenario.cmake
# Passes when the suite says "OVERALL: PASSED" (on stderr). The suite counts a warning as a
# failure (it then says "OVERALL: FAILED"), and so does this test.
foreach(variable SCENARIO TETHERCTL NODE_MODULES)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "usage: cmake -DSCENARIO=<name> -DTETHERCTL=<path> -DNODE_MODULES=<path> -P run-scenario.cmake")
    endif()
endforeach()
set(suite "${NODE_MODULES}/@modelcontextprotocol/conformance/dist/index.js")
if(NOT EXISTS "${suite}")
    message(FATAL_ERROR "the conformance suite is not installed (${suite}): run `npm ci` in the source folder")
endif()
find_program(node node)
if(NOT node)
    message(FATAL_ERROR "node is not installed (apt-get install nodejs): the conformance suite runs on it")
endif()

set(ENV{TETHERCTL} "${TETHERCTL}")
# The suite's timeout is for the client's whole run; the test's own (CTest's TIMEOUT) is longer.
execute_process(COMMAND "${node}" --import "${CMAKE_CURRENT_LIST_DIR}/node/register.mjs" "${suite}"
                        client --command "${CMAKE_CURRENT_LIST_DIR}/client.sh" --scenario "${SCENARIO}"
                        --timeout 30000
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
string(ASCII 27 escape)
string(REGEX REPLACE "${escape}\\[[0-9;]*m" "" plain_output "${output}${errors}")
if(NOT plain_output MATCHES "OVERALL: PASSED")
    message(FATAL_ERROR "conformance scenario ${SCENARIO}: tetherctl did not pass (exit status ${status})")
endif()
