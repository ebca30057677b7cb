# One smoke run of a benchmark for CTest:
#   cmake -DLAST_FIGURE=<regex> [-DBOUNDED_FIGURE=<regex> -DBOUND=<number>] -P smoke.cmake -- <program> [arguments...]
# Passes when the program exits with status 0 and the last line it prints matches LAST_FIGURE,
# that is when it ran to the end and printed its figures. (A test's PASS_REGULAR_EXPRESSION
# would make CTest ignore the exit status, so both checks are made here.) With BOUNDED_FIGURE,
# the number its first group catches in the output must also be printed and be at most BOUND:
# a figure that does not depend on the machine's load, so that a regression fails the test.
set(command)
math(EXPR last_argument "${CMAKE_ARGC} - 1")
foreach(index RANGE 1 ${last_argument})
    if(DEFINED separator_seen)
        list(APPEND command "${CMAKE_ARGV${index}}")
    elseif(CMAKE_ARGV${index} STREQUAL "--")
        set(separator_seen TRUE)
    endif()
endforeach()
list(LENGTH command command_length)
if(command_length EQUAL 0 OR NOT DEFINED LAST_FIGURE)
    message(FATAL_ERROR "usage: cmake -DLAST_FIGURE=<regex> -P smoke.cmake -- <program> [arguments...]")
endif()
list(JOIN command " " command_line)

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT status STREQUAL "0")
    message(FATAL_ERROR "${command_line} ended with status ${status}")
endif()
string(STRIP "${output}" output)
string(FIND "${output}" "\n" last_newline REVERSE)
math(EXPR last_line_start "${last_newline} + 1")
string(SUBSTRING "${output}" ${last_line_start} -1 last_line)
if(NOT last_line MATCHES "${LAST_FIGURE}")
    message(FATAL_ERROR "${command_line} exited with 0, but its last line is not the figure it prints last (${LAST_FIGURE}): ${last_line}")
endif()
if(DEFINED BOUNDED_FIGURE)
    if(NOT output MATCHES "${BOUNDED_FIGURE}")
        message(FATAL_ERROR "${command_line} did not print the figure it is held to (${BOUNDED_FIGURE})")
    endif()
    if(CMAKE_MATCH_1 GREATER BOUND)
        message(FATAL_ERROR "${command_line}: ${CMAKE_MATCH_0}: ${CMAKE_MATCH_1} is over its bound, ${BOUND}")
    endif()
endif()
