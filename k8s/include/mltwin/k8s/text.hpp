// mltwin/k8s/text.hpp — names and texts from a user's file, made safe to print: what the codec
// and the scenario loaders show in their messages.
#pragma once
#include <string>
#include <string_view>

namespace mltwin::k8s {

/// `s` with control characters (C0, DEL, C1), the Unicode bidirectional controls and bytes
/// that are not UTF-8 written as \xNN / \uNNNN: safe to print in a message.
std::string printable(std::string_view s);

/// What makes `s` unfit for a name or a text (a control character as printable() escapes, or
/// invalid UTF-8), or empty. `allow_line_breaks` lets newlines and tabs pass (a YAML block
/// scalar holds lines; names are checked by their own rules).
std::string control_character_problem(std::string_view s, bool allow_line_breaks = false);

/// A JSON object key as a JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1"). Every error
/// path through a key the user chose (a resource or label name: aws.amazon.com~1neuron) is
/// built with it.
std::string pointer_token_of(std::string_view key);

}  // namespace mltwin::k8s
