# Writes the scenario JSON Schema into a C++ header as a raw string literal.
file(READ ${IN} content)
file(WRITE ${OUT} "// Generated from scenarios/schema/scenario.schema.json; do not edit.\n#pragma once\nnamespace mltwin::io {\ninline constexpr const char* kScenarioSchema = R\"mltwin_schema(${content})mltwin_schema\";\n}\n")
