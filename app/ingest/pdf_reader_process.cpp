#include "app/ingest/pdf_reader_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "app/ingest/pdf_wire.h"
#include "app/paths.h"

extern char** environ;

namespace precis {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollMillis = 50;               // how often a cancel is looked for
constexpr size_t kWriteChunk = 1 << 20;       // the request goes out in pieces, so a cancel is heard
constexpr std::chrono::milliseconds kExitGrace{2000};  // a finished reader gets this long to exit

bool is_executable_file(const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string describe_exit(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = strsignal(sig);
        return "signal " + std::to_string(sig) + (name ? std::string(", ") + name : std::string());
    }
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    return "status " + std::to_string(status);
}

// The reader process and our end of its socket. Whatever way the read ends, the process
// is gone (killed if need be) and reaped when this is destroyed.
class ReaderProcess {
public:
    ~ReaderProcess() {
        if (fd_ >= 0) ::close(fd_);
        if (pid_ > 0) kill_now();
    }

    // Empty on success, else why the program could not be run.
    std::string start(const std::string& program) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return std::strerror(errno);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, sv[1], STDOUT_FILENO);
        // A group of its own: Ctrl-C in a terminal goes to the whole foreground group, and
        // a reader that died of it would look like a crash. Precis cancels it instead.
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attributes, 0);
        char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
        const int rc = ::posix_spawn(&pid_, program.c_str(), &actions, &attributes, argv, environ);
        posix_spawnattr_destroy(&attributes);
        posix_spawn_file_actions_destroy(&actions);
        ::close(sv[1]);
        if (rc != 0) {
            pid_ = -1;
            ::close(sv[0]);
            return std::strerror(rc);
        }
        fd_ = sv[0];
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
        return {};
    }

    int fd() const { return fd_; }

    void kill_now() {
        ::kill(pid_, SIGKILL);
        reap_blocking();
    }

    // Waits up to `grace` for the process to end by itself, then kills it. Returns how it ended.
    int wait_or_kill(std::chrono::milliseconds grace) {
        const auto deadline = Clock::now() + grace;
        while (Clock::now() < deadline) {
            int status = 0;
            const pid_t r = ::waitpid(pid_, &status, WNOHANG);
            if (r == pid_ || (r < 0 && errno != EINTR)) {
                pid_ = -1;
                return status;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ::kill(pid_, SIGKILL);
        return reap_blocking();
    }

private:
    int reap_blocking() {
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        return status;
    }

    pid_t pid_ = -1;
    int fd_ = -1;
};

}  // namespace

std::string find_pdf_reader() {
    if (const char* env = std::getenv("PRECIS_PDF_READER")) return env;
    const std::filesystem::path exe = executable_path();
    if (exe.empty()) return {};
    const std::filesystem::path dir = exe.parent_path();
    for (const std::filesystem::path& candidate :
         {dir / "precis-pdf-reader", dir / ".." / "libexec" / "precis" / "precis-pdf-reader"})
        if (is_executable_file(candidate)) return candidate.lexically_normal().string();
    return {};
}

PdfReaderOutcome read_pdf_in_reader_process(const std::string& program, const QByteArray& bytes, const QString& password,
                                            std::chrono::milliseconds stall_limit,
                                            const std::function<bool()>& should_abort) {
    PdfReaderOutcome out;
    ReaderProcess reader;
    if (std::string error = reader.start(program); !error.empty()) {
        out.ending = PdfReaderOutcome::Ending::CouldNotStart;
        out.detail = program + ": " + error;
        return out;
    }
    const QByteArray request = encode_pdf_request(password, bytes);
    size_t written = 0;
    FrameSplitter splitter;
    PdfPagesCollector collected;
    PdfFrameApplier applier(collected);
    auto last_step = Clock::now();
    bool ended = false;      // the reader closed its end (or broke the protocol) before finishing
    bool malformed = false;  // what it sent is not the protocol

    while (!applier.finished() && !ended) {
        if (should_abort && should_abort()) {
            reader.kill_now();
            out.ending = PdfReaderOutcome::Ending::Cancelled;
            return out;
        }
        const bool writing = written < size_t(request.size());
        pollfd p{reader.fd(), short(POLLIN | (writing ? POLLOUT : 0)), 0};
        const int ready = ::poll(&p, 1, kPollMillis);
        if (ready < 0 && errno != EINTR) {
            out.detail = std::string("poll: ") + std::strerror(errno);
            ended = true;
            break;
        }
        if (ready > 0 && writing && (p.revents & POLLOUT)) {
            const size_t n = std::min(kWriteChunk, size_t(request.size()) - written);
            const ssize_t put = ::send(reader.fd(), request.constData() + written, n, MSG_NOSIGNAL);
            if (put > 0) {
                written += size_t(put);
                last_step = Clock::now();
            } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
                written = size_t(request.size());  // it stopped reading: what it says (or how it ended) tells why
            }
        }
        if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            char buffer[64 * 1024];
            const ssize_t got = ::recv(reader.fd(), buffer, sizeof buffer, 0);
            if (got > 0) {
                splitter.feed(buffer, size_t(got));
                while (std::optional<QByteArray> payload = splitter.next(&malformed)) {
                    if (!applier.apply(*payload)) {
                        malformed = true;
                        break;
                    }
                    ++out.steps;
                    last_step = Clock::now();
                    if (applier.finished()) break;
                }
                if (malformed) {
                    out.detail = "it sent a malformed reply";
                    ended = true;
                }
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                ended = true;
            }
        }
        if (!applier.finished() && !ended && Clock::now() - last_step > stall_limit) {
            reader.kill_now();
            out.ending = PdfReaderOutcome::Ending::Stalled;
            return out;
        }
    }

    if (!applier.finished()) {
        if (should_abort && should_abort()) {  // a cancel that came as it ended is still a cancel
            reader.kill_now();
            out.ending = PdfReaderOutcome::Ending::Cancelled;
            return out;
        }
        // Closed before the end (a crash, in all likelihood: its exit says how) or garbled.
        out.ending = PdfReaderOutcome::Ending::Crashed;
        if (malformed) {
            reader.kill_now();
        } else {
            const int status = reader.wait_or_kill(kExitGrace);
            if (out.detail.empty()) out.detail = describe_exit(status);
        }
        return out;
    }
    reader.wait_or_kill(kExitGrace);
    out.pages = std::move(collected.result());
    out.pages.failure = applier.failure();
    return out;
}

}  // namespace precis
