// mltwin/policy/go_duration.hpp — durations written as Go writes them, for the Volcano
// configuration values that Go parses with time.ParseDuration (the sla plugin's
// `sla-waiting-time` argument and PodGroup annotation, Volcano v1.12.1
// pkg/scheduler/plugins/sla/sla.go and pkg/scheduler/api/job_info.go extractWaitingTime).
#pragma once

#include "mltwin/policy/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>

namespace mltwin::policy {

/// Go's time.ParseDuration (src/time/format.go): a possibly signed sequence of decimal numbers,
/// each with an optional fraction and a unit — "300ms", "-1.5h", "2h45m", "1h2m3s4ms5us6ns".
/// Units: "ns", "us", "µs" (U+00B5) or "μs" (U+03BC), "ms", "s", "m", "h" (no "d").
/// "0" alone is zero; any other number needs a unit.
/// Returns nanoseconds. Throws std::invalid_argument with Go's own message on bad input:
/// `time: invalid duration "x"`, `time: missing unit in duration "10"`,
/// `time: unknown unit "d" in duration "1d"`, and `time: invalid duration` on overflow
/// (beyond ±2^63-1 ns, about 292 years).
MLTWIN_POLICY_EXPORT std::int64_t parse_go_duration(std::string_view s);

/// Go's time.Duration.String(): "1h2m3s", "1.5s", "250ms", "1.5µs", "0s", "-2s" (the largest
/// unit is the hour; trailing zeros of a fraction are dropped).
MLTWIN_POLICY_EXPORT std::string format_go_duration(std::int64_t ns);

}  // namespace mltwin::policy
