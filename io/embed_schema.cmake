# Writes a JSON Schema into a C++ header as a raw string literal named NAME (default
# kScenarioSchema): cmake -DIN=schema.json -DOUT=header.hpp [-DNAME=kSomething] -P embed_schema.cmake
if(NOT DEFINED NAME)
  set(NAME kScenarioSchema)
endif()
get_filename_component(in_name ${IN} NAME)
file(READ ${IN} content)
file(WRITE ${OUT} "// Generated from scenarios/schema/${in_name}; do not edit.\n#pragma once\nnamespace mltwin::io {\ninline constexpr const char* ${NAME} = R\"mltwin_schema(${content})mltwin_schema\";\n}\n")
