# What plush-bench and the plush CLI share (display.h, command_line.h), as
# the library plush_tools_common. Included by tools/bench and tools/cli,
# whichever comes first defines it.
include_guard(GLOBAL)
find_package(CLI11 CONFIG REQUIRED)
add_library(plush_tools_common STATIC ${CMAKE_CURRENT_LIST_DIR}/display.cc)
target_include_directories(plush_tools_common PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(plush_tools_common
  PUBLIC plush::plush CLI11::CLI11 Threads::Threads PRIVATE plush_warnings)
