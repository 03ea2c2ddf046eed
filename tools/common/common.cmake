# What plush-bench and the plush CLI share: the terminal display (display.h).
# Added by whichever of tools/bench and tools/cli comes first.
add_library(plush_tools_common STATIC display.cc)
target_include_directories(plush_tools_common PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(plush_tools_common PUBLIC Threads::Threads PRIVATE plush_warnings)
