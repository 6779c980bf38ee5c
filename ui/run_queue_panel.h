#pragma once
// The summaries and classifications the window has been asked for, in order: waiting,
// running, then done, failed or cancelled. Summarize or Classify on a document during a run
// adds it here instead of starting it; the main window starts the next waiting one when a
// run ends (the waiting summaries together, several entries running at once). A waiting
// entry can be removed (Delete, or the Remove button).
#include <QString>
#include <QVector>
#include <QWidget>

#include <optional>

class QListWidget;
class QPushButton;

namespace precis::ui {

class RunQueuePanel : public QWidget {
    Q_OBJECT
public:
    enum class State { Waiting, Running, Done, Failed, Cancelled };
    enum class Task { Summarize, Classify };
    struct Entry {
        int id = 0;
        qint64 document_id = 0;
        QString name;  // the file name, as the progress line says it
        State state = State::Waiting;
        Task task = Task::Summarize;
    };

    explicit RunQueuePanel(QWidget* parent = nullptr);

    // A new waiting entry; returns its id.
    int add(qint64 document_id, const QString& name, Task task = Task::Summarize);
    void set_state(int id, State state);
    void set_states(const QVector<int>& ids, State state);  // a batched run's entries at once
    std::optional<Entry> next_waiting() const;
    // The waiting entries of `task`, in line order, at most `at_most` of them.
    QVector<Entry> waiting(Task task, int at_most) const;
    std::optional<Entry> entry(int id) const;
    bool remove(int id);  // only a waiting entry; false otherwise
    bool is_waiting(qint64 document_id, Task task = Task::Summarize) const;
    int waiting_count() const;
    void cancel_waiting();  // every waiting entry becomes Cancelled (the window is closing)
    void clear_finished();
    const QVector<Entry>& entries() const { return entries_; }
    QListWidget* list() const { return list_; }

    static QString state_name(State state);

signals:
    void removed(int id);

private:
    void rebuild();
    void remove_selected();

    QVector<Entry> entries_;
    int last_id_ = 0;
    QListWidget* list_;
    QPushButton* remove_;
    QPushButton* clear_;
};

}  // namespace precis::ui
