// output_files.hpp — what the runner's writers share to write a file safely: a file's
// identity (to refuse overwriting an input however it is spelled) and a hidden, unique file
// beside the target to write into and rename over it at the end. Internal to runner/.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

namespace mltwin::runner::detail {

/// A file's identity (device and inode), as stat(2) gives it through symbolic links.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};
inline std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

/// A file the run reads, by identity: `out` may not be one of them.
struct InputId {
  FileId id;
  std::string role, path;
};

/// Creates a new, empty, uniquely named file beside `out`: `.NAME.in-progress-XXXXXX`
/// (mode 0666 less the umask, as the database would get). Throws std::runtime_error naming
/// the folder if it cannot.
inline std::string create_hidden_beside(const std::string& out, const std::string& what = "results database") {
  const std::filesystem::path p(out);
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;  // the name only: nothing recorded depends on it
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string suffix(6, 'x');
    for (char& c : suffix) c = kChars[rd() % (sizeof kChars - 1)];
    std::string name = ".";
    name += p.filename().string();
    name += ".in-progress-";
    name += suffix;
    const std::filesystem::path tmp = p.parent_path() / name;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp.string();
    }
    if (errno != EEXIST)
      throw std::runtime_error("cannot create " + what + " '" + out + "': cannot create '" + tmp.string() +
                               "' beside it: " + std::strerror(errno));
  }
  throw std::runtime_error("cannot create " + what + " '" + out + "': no free temporary name beside it");
}

}  // namespace mltwin::runner::detail
