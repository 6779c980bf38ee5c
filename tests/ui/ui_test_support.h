#pragma once
// Shared by the GUI tests: a QApplication on the offscreen platform with settings and
// user data in scratch folders (never the developer's own), the fixture test model
// selected in the settings, and helpers to wait for the engine thread.
#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QSemaphore>
#include <QSettings>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <filesystem>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/worker/engine_settings.h"
#include "app/worker/engine_worker.h"
#include "tests/support/fixtures.h"

namespace precis::test {

inline EngineSettings fixture_model_settings() {
    EngineSettings s;
    s.model_dir = QString::fromStdString((fixtures_dir() / "models" / "bart-tiny-realvocab").string());
    s.device = "cpu";
    return s;
}

// Stores the fixture model (and otherwise default settings) as the application's settings.
inline void use_fixture_model_settings() {
    QSettings q;
    q.clear();
    save_engine_settings(q, fixture_model_settings());
}

inline bool fixture_model_available() { return !fixture_test_model().dir.empty(); }

// With PRECIS_SHOTS_DIR set, saves what `w` shows there as `name` (a screenshot to look at);
// otherwise does nothing, so the suite writes no files of its own.
inline void save_shot_if_asked(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("PRECIS_SHOTS_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QApplication::processEvents();
    EXPECT_TRUE(w->grab().save(dir + "/" + name)) << name.toStdString();
}

// Waits (processing events) until `done` holds; generous because CI machines are shared.
inline bool wait_until(const std::function<bool()>& done, int timeout_ms = 120000) {
    return QTest::qWaitFor(done, timeout_ms);
}

// Holds the engine worker at its next progress report, on the worker's own thread, until
// release() or the gate's end. A test that cancels a run needs it: the fixture model is so
// small that a summary can be made and stored between two statements of the test, and the
// cancel would then come too late (it did not, most of the time: a race, not a proof).
class WorkerGate {
public:
    explicit WorkerGate(EngineWorker* worker) : state_(std::make_shared<State>()) {
        // The lambda owns the state, so a worker still inside it outlives nothing.
        connection_ = QObject::connect(
            worker, &EngineWorker::progress, worker,
            [state = state_] {
                if (state->held.exchange(true)) return;  // once: later reports pass
                state->released.tryAcquire(1, kHoldAtMostMs);
            },
            Qt::DirectConnection);
    }
    ~WorkerGate() {
        QObject::disconnect(connection_);
        release();
    }
    WorkerGate(const WorkerGate&) = delete;
    WorkerGate& operator=(const WorkerGate&) = delete;

    void release() { state_->released.release(); }

private:
    static constexpr int kHoldAtMostMs = 60000;  // a test that forgets to release still ends
    struct State {
        std::atomic<bool> held{false};
        QSemaphore released;
    };
    std::shared_ptr<State> state_;
    QMetaObject::Connection connection_;
};

// Answers the next modal message box with `button`, remembering its text. The poll ends
// with `owner` (the test's window), so a box that never came cannot leak into the next test.
struct BoxAnswer {
    QString text;
    bool seen = false;
};
inline std::shared_ptr<BoxAnswer> answer_next_box(QObject* owner, QMessageBox::StandardButton button) {
    auto answer = std::make_shared<BoxAnswer>();
    auto* poll = new QTimer(owner);
    poll->setInterval(20);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, answer, button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        answer->text = box->text();
        answer->seen = true;
        static int shot = 0;  // for looking at: /tmp/precis-confirm-N.png
        box->grab().save(QStringLiteral("/tmp/precis-confirm-%1.png").arg(++shot));
        box->button(button)->click();
        poll->deleteLater();
    });
    poll->start();
    return answer;
}

inline std::filesystem::path write_text_file(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::WriteOnly)) throw std::runtime_error("cannot write " + path.string());
    f.write(QByteArray::fromStdString(text));
    return path;
}

inline std::string river_paragraphs() {
    return "Rivers shape their valleys slowly, grain by grain, season after season.\n\n"
           "A river begins as a problem of arithmetic: rain falls on land and some of it must go somewhere. "
           "Part evaporates, part is drawn up by roots, part sinks to become groundwater.\n\n"
           "What is left runs across the surface and gathers into streams, which join into larger streams.\n\n"
           "Floods spread fine silt over the plain and build fertile soil that farmers have valued for thousands of years.\n";
}

// A first run: no installed model, no default, no saved window settings.
inline void start_as_new_user() {
    std::error_code ec;
    std::filesystem::remove_all(user_models_dir(), ec);
    models::set_default_model({});
    QSettings().clear();
}

inline int run_ui_tests(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    // Tests never reach the internet: no hub token, endpoint or proxy of the user's applies.
    for (const char* v : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE", "http_proxy",
                          "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})
        qunsetenv(v);
    // Settings, library and models of the test live in a scratch folder.
    const std::filesystem::path home = scratch_dir("precis-ui-test-home");
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString((home / "config").string()));
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString((home / "data").string()));
    qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((home / "cache").string()));
    qputenv("HF_HOME", QByteArray::fromStdString((home / "hf").string()));  // no HuggingFace-cache models either
    qunsetenv("HF_HUB_CACHE");
    qunsetenv("PRECIS_MODEL");
    qunsetenv("PRECIS_LIBRARY");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("precis-ui-test"));
    QApplication::setOrganizationName(QStringLiteral("precis"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

}  // namespace precis::test
