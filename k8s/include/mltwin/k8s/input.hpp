// mltwin/k8s/input.hpp — reading a user's file: the one error type for bad input, and files
// read within a size limit. Shared by the codec and the scenario loaders (io::ScenarioError is
// this InputError).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mltwin::k8s {

/// Bad input in a user's file: what() names the file and the place (a JSON path, or a line and
/// column) and says what is wrong.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Limits on an input file (docs/limits.md): a configuration, scenario or manifest file (YAML
/// or JSON) at most kMaxConfigFileBytes; a trace or a cluster snapshot at most kMaxDataFileBytes.
inline constexpr std::uintmax_t kMaxConfigFileBytes = std::uintmax_t{64} << 20;  // 64 MiB
inline constexpr std::uintmax_t kMaxDataFileBytes = std::uintmax_t{4} << 30;     // 4 GiB

/// Throws InputError "path: ..." unless `path` is a regular file of at most `max_bytes` (a
/// FIFO or a device such as /dev/urandom would block or never end). `what` names the input in
/// the message ("scenario file", "Philly trace").
void check_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes);
/// check_input_file, then the file's bytes (at most max_bytes, even if the file grows while it
/// is read). Throws InputError.
std::string read_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes);

/// Runs `read()`, which reads `text`, a file's whole content; a syntax error ("invalid JSON",
/// "invalid YAML") it throws as InputError for text that does not end with a line break
/// (kubectl, eksctl and editors end files with one) is thrown again with a hint that the file
/// was cut short. Other errors pass unchanged (a generated file may lack the final line break).
template <class Read>
decltype(auto) reading_whole(const std::string& text, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (text.empty() || text.back() == '\n' ||
        (what.find(": invalid JSON") == std::string::npos && what.find(": invalid YAML") == std::string::npos))
      throw;
    throw InputError(what + " (the file does not end with a line break, as kubectl's output does: was it cut short?)");
  }
}

}  // namespace mltwin::k8s
