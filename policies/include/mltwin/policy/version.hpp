// The policy library's version and the upstream releases whose rules it reproduces.
//
// One source of truth: the top-level CMakeLists.txt reads MLTWIN_VERSION_* from this file for
// project(VERSION), the package config version file, the shared library's SOVERSION and the
// pkg-config file. Versioning follows docs/stability.md: before 1.0 a minor release may change
// the API (SOVERSION is major.minor); a patch release never does.
#pragma once

#define MLTWIN_VERSION_MAJOR 0
#define MLTWIN_VERSION_MINOR 2
#define MLTWIN_VERSION_PATCH 0

namespace mltwin::policy {

inline constexpr int kVersionMajor = MLTWIN_VERSION_MAJOR;
inline constexpr int kVersionMinor = MLTWIN_VERSION_MINOR;
inline constexpr int kVersionPatch = MLTWIN_VERSION_PATCH;
#define MLTWIN_VERSION_STR_(x) #x
#define MLTWIN_VERSION_STR(x) MLTWIN_VERSION_STR_(x)
/// "major.minor.patch".
inline constexpr const char* kVersion = MLTWIN_VERSION_STR(MLTWIN_VERSION_MAJOR) "." MLTWIN_VERSION_STR(
    MLTWIN_VERSION_MINOR) "." MLTWIN_VERSION_STR(MLTWIN_VERSION_PATCH);

/// The Volcano release whose scheduler (actions, plugins, api) the policies reproduce; a
/// scenario must name this one (github.com/volcano-sh/volcano, tag v1.12.1).
inline constexpr const char* kVolcanoRelease = "v1.12.1";
/// The DJL Serving release whose rules the built-in DJL serving policies reproduce
/// (github.com/deepjavalibrary/djl-serving, tag v0.23.0).
inline constexpr const char* kDjlServingRelease = "0.23.0";
/// The Multi Model Server release the static-worker baseline follows
/// (github.com/awslabs/multi-model-server, tag v1.1.9).
inline constexpr const char* kMmsRelease = "v1.1.9";

}  // namespace mltwin::policy
