// Input files read within their limits (mltwin/k8s/input.hpp).
#include "mltwin/k8s/input.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace mltwin::k8s {

namespace fs = std::filesystem;

void check_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open the " + what);
  // A FIFO, a device such as /dev/urandom or a directory would block or never end.
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": the " + what + " is not a regular file (" +
                        (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file") +
                        "); mltwin reads inputs from regular files only");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw InputError(path + ": the " + what + " is " + std::to_string(st.st_size) + " bytes, above the limit of " +
                        std::to_string(max_bytes) + " bytes for this kind of input (docs/limits.md)");
}

std::string read_input_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes) {
  check_input_file(path, what, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the " + what);
  std::string text;
  text.reserve(static_cast<std::size_t>(fs::file_size(path)));
  // Reads at most max_bytes + 1: a file that grows while it is read is still bounded.
  char buf[1 << 16];
  while (in && text.size() <= max_bytes) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > max_bytes)
    throw InputError(path + ": the " + what + " grew above the limit of " + std::to_string(max_bytes) + " bytes while it was read");
  if (in.bad()) throw InputError(path + ": cannot read the " + what);
  return text;
}

}  // namespace mltwin::k8s
