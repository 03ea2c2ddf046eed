# What the tools share (display.h, command_line.h, pool_args.h), as the
# library plush_tools_common. Included by tools/bench, tools/cli and
# tools/server, whichever comes first defines it.
include_guard(GLOBAL)
find_package(CLI11 CONFIG REQUIRED)
add_library(plush_tools_common STATIC
  ${CMAKE_CURRENT_LIST_DIR}/display.cc ${CMAKE_CURRENT_LIST_DIR}/pool_args.cc)
target_include_directories(plush_tools_common PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(plush_tools_common
  PUBLIC plush::plush CLI11::CLI11 Threads::Threads PRIVATE plush_warnings)
