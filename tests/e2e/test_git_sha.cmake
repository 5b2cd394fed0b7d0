# cmake -DSCRIPT=<apps/git_sha.cmake> -DWORK=<scratch folder> -P test_git_sha.cmake
#
# Runs the build-time SHA script against a scratch git repository: the header names HEAD, is
# rewritten when HEAD moves or the work tree turns dirty or clean, and is left untouched (same
# modification time) when nothing changed; outside any git work tree it says "unknown".
cmake_minimum_required(VERSION 3.22)
find_package(Git REQUIRED)

# Nothing above WORK may be taken for the repository (e.g. a checkout that holds the build).
set(ENV{GIT_CEILING_DIRECTORIES} "${WORK}")
set(ENV{GIT_CONFIG_NOSYSTEM} 1)
set(ENV{GIT_AUTHOR_NAME} t)
set(ENV{GIT_AUTHOR_EMAIL} t@example.invalid)
set(ENV{GIT_COMMITTER_NAME} t)
set(ENV{GIT_COMMITTER_EMAIL} t@example.invalid)

file(REMOVE_RECURSE "${WORK}")
set(repo "${WORK}/repo")
set(norepo "${WORK}/norepo")
set(hdr "${WORK}/sha.hpp")
file(MAKE_DIRECTORY "${repo}" "${norepo}")

function(git)
  execute_process(COMMAND ${GIT_EXECUTABLE} ${ARGN} WORKING_DIRECTORY "${repo}" RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ${ARGN}: ${err}")
  endif()
endfunction()
function(head out)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY "${repo}"
                  OUTPUT_VARIABLE h OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${out} "${h}" PARENT_SCOPE)
endfunction()
# Runs the script for `dir`; sets <out> to the SHA the header defines.
function(generate dir out)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${dir} -DOUT=${hdr} -P ${SCRIPT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git_sha.cmake failed for ${dir}")
  endif()
  file(READ "${hdr}" text)
  if(NOT text MATCHES "#define MLTWIN_GIT_SHA \"([^\"]*)\"")
    message(FATAL_ERROR "no MLTWIN_GIT_SHA in:\n${text}")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
function(expect what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: got '${got}', expected '${want}'")
  endif()
  message(STATUS "ok: ${what}: ${got}")
endfunction()

# Outside git.
generate("${norepo}" sha)
expect("outside git" "${sha}" "unknown")

# A repository with no commit yet has no HEAD either.
git(init -q)
generate("${repo}" sha)
expect("no commit yet" "${sha}" "unknown")

file(WRITE "${repo}/a.txt" "one\n")
git(add a.txt)
git(commit -q -m one)
head(h1)
generate("${repo}" sha)
expect("first commit" "${sha}" "${h1}")

# Unchanged: the header keeps its modification time (nothing to recompile). Wait past the
# timestamp resolution first, so a rewrite would show.
file(TIMESTAMP "${hdr}" t1 "%Y%m%d%H%M%S" UTC)
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
generate("${repo}" sha)
file(TIMESTAMP "${hdr}" t2 "%Y%m%d%H%M%S" UTC)
expect("unchanged SHA, header not rewritten (mtime)" "${t2}" "${t1}")

# An untracked file does not make the tree dirty; a changed tracked file does.
file(WRITE "${repo}/untracked.txt" "x\n")
generate("${repo}" sha)
expect("untracked file" "${sha}" "${h1}")
file(WRITE "${repo}/a.txt" "two\n")
generate("${repo}" sha)
expect("changed tracked file" "${sha}" "${h1}-dirty")
git(add a.txt)
generate("${repo}" sha)
expect("staged change" "${sha}" "${h1}-dirty")

# A new commit: the header follows HEAD, clean again.
git(commit -q -m two)
head(h2)
if(h2 STREQUAL h1)
  message(FATAL_ERROR "HEAD did not move")
endif()
generate("${repo}" sha)
expect("second commit" "${sha}" "${h2}")

file(REMOVE_RECURSE "${WORK}")
