# cmake -DBUILD_DIR=<an mltwin build> -DWORK=<scratch dir> -DCONSUMER=<tests/consumer>
#       -DPLUGIN=<examples/plugin> -DCXX=<compiler> [-DSANITIZE=address,undefined]
#       -P install_and_consume.cmake
#
# Installs the policy library of an existing build (cmake --install, component mltwin_policy;
# nothing is rebuilt) into WORK/prefix and consumes it as a production component would:
#   1. the installed CMake package carries -ffp-contract=off as an interface compile option;
#   2. find_package(mltwin 0.2 CONFIG COMPONENTS policy): tests/consumer builds and runs;
#   3. examples/plugin (the plugin guide's example, with policy_testing) builds and runs;
#   4. the version file: 0.2 is accepted, 0.1 and 0.3 are refused (SameMinorVersion before 1.0),
#      and an unknown component is refused;
#   5. pkg-config mltwin gives the flags to build tests/consumer/main.cpp by hand.
cmake_minimum_required(VERSION 3.22)
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(r)
    message(FATAL_ERROR "failed (${r}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component mltwin_policy)
file(GLOB_RECURSE targets ${prefix}/*/mltwinPolicyTargets.cmake)
file(GLOB_RECURSE pcfile ${prefix}/*/pkgconfig/mltwin.pc)
if(NOT targets OR NOT pcfile)
  message(FATAL_ERROR "the install lacks mltwinPolicyTargets.cmake or mltwin.pc: ${targets} ${pcfile}")
endif()
# The licence travels with the library.
foreach(f LICENSE NOTICE)
  if(NOT EXISTS ${prefix}/share/doc/mltwin/${f})
    message(FATAL_ERROR "the install lacks share/doc/mltwin/${f}")
  endif()
endforeach()

# 1. Bit-identical decisions need no FMA contraction in the consumer's inline Resource code.
file(READ ${targets} text)
string(REGEX MATCH "INTERFACE_COMPILE_OPTIONS \"[^\"]*-ffp-contract=off" carried "${text}")
if(NOT carried)
  message(FATAL_ERROR "${targets}: INTERFACE_COMPILE_OPTIONS does not carry -ffp-contract=off")
endif()

set(common -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX})
# A library built with sanitizers (make test-sanitize) needs their runtime in whatever links it,
# as any consumer of such a build would.
set(san_flags "")
if(SANITIZE)
  set(san_flags -fsanitize=${SANITIZE})
  list(APPEND common "-DCMAKE_CXX_FLAGS=${san_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${san_flags}")
endif()
# 2. The consumer.
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/consumer ${common})
run(${CMAKE_COMMAND} --build ${WORK}/consumer)
run(${WORK}/consumer/consumer)
message(STATUS "consumer: ${last_out}")
# 3. The plugin example.
run(${CMAKE_COMMAND} -S ${PLUGIN} -B ${WORK}/plugin ${common})
run(${CMAKE_COMMAND} --build ${WORK}/plugin)
run(${WORK}/plugin/team_pools_example)
message(STATUS "plugin example: ${last_out}")

# 4. Version and component checks: a project asking for VERSION and COMPONENTS.
function(expect_find version components want)
  set(dir ${WORK}/find-${version}-${want})
  file(WRITE ${dir}/CMakeLists.txt
    "cmake_minimum_required(VERSION 3.22)\nproject(p CXX)\nfind_package(mltwin ${version} CONFIG REQUIRED COMPONENTS ${components})\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/b ${common} RESULT_VARIABLE r OUTPUT_QUIET ERROR_QUIET)
  if(want STREQUAL "ok" AND r)
    message(FATAL_ERROR "find_package(mltwin ${version} COMPONENTS ${components}) failed")
  elseif(want STREQUAL "refused" AND NOT r)
    message(FATAL_ERROR "find_package(mltwin ${version} COMPONENTS ${components}) was accepted")
  endif()
endfunction()
expect_find(0.2 "policy;policy_testing" ok)
expect_find(0.1 policy refused)
expect_find(0.3 policy refused)
expect_find(0.2 "policy;serving_magic" refused)

# 5. pkg-config.
find_program(PKG_CONFIG pkg-config REQUIRED)
get_filename_component(pcdir ${pcfile} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
run(${PKG_CONFIG} --cflags --libs mltwin)
separate_arguments(flags UNIX_COMMAND "${last_out}")
if(NOT flags MATCHES "-ffp-contract=off")
  message(FATAL_ERROR "pkg-config mltwin lacks -ffp-contract=off: ${last_out}")
endif()
run(${PKG_CONFIG} --variable=libdir mltwin)
string(STRIP "${last_out}" libdir)
# (an rpath, so that a shared library is found where it was installed)
run(${CXX} ${CONSUMER}/main.cpp ${flags} ${san_flags} -Wl,-rpath,${libdir} -o ${WORK}/consumer-pc)
run(${WORK}/consumer-pc)
message(STATUS "pkg-config consumer: ${last_out}")
