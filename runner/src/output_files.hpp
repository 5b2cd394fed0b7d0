// output_files.hpp — what the runner's writers share to write a file safely: a file's
// identity (to refuse overwriting an input however it is spelled), a hidden, unique file
// beside the target to write into and rename over it at the end, and WholeFile, which does
// both for a file written whole or not at all. Internal to runner/.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

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

/// A file written whole or not at all: the constructor creates a hidden file beside `target`
/// (create_hidden_beside: a folder that cannot be written is an error then, before anything is
/// written), write() or a writer of its own fills it, commit() renames it over `target`. Until
/// then `target` is as it was; a WholeFile destroyed uncommitted removes its hidden file.
class WholeFile {
 public:
  /// `what` names the file in errors ("summary file"). Throws std::runtime_error as
  /// create_hidden_beside does.
  WholeFile(std::string target, std::string what)
      : target_(std::move(target)), what_(std::move(what)), hidden_(create_hidden_beside(target_, what_)) {}
  ~WholeFile() {
    std::error_code ec;
    if (!hidden_.empty()) std::filesystem::remove(hidden_, ec);
  }
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  const std::string& target() const noexcept { return target_; }
  /// The hidden file beside the target, for a writer of its own ("" once committed).
  const std::string& hidden() const noexcept { return hidden_; }
  /// Writes `text` into the hidden file (replacing what it held). Throws std::runtime_error
  /// naming the target (a full disk, a file-size limit).
  void write(const std::string& text) {
    errno = 0;
    std::ofstream out(hidden_, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out)
      throw std::runtime_error("cannot write " + what_ + " '" + target_ + "': writing '" + hidden_ + "' beside it failed" +
                               (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
  }
  /// Renames the hidden file over the target. Throws std::runtime_error naming both if it fails.
  void commit() {
    std::error_code ec;
    std::filesystem::rename(hidden_, target_, ec);
    if (ec)
      throw std::runtime_error("cannot write " + what_ + " '" + target_ + "': cannot rename '" + hidden_ + "' over it: " +
                               ec.message());
    hidden_.clear();
  }

 private:
  std::string target_, what_, hidden_;
};

}  // namespace mltwin::runner::detail
