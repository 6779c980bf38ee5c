#include "ui/run_queue_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace precis::ui {

namespace {

constexpr int kKeepFinished = 20;  // older finished entries drop off the list

bool finished(RunQueuePanel::State s) {
    return s == RunQueuePanel::State::Done || s == RunQueuePanel::State::Failed || s == RunQueuePanel::State::Cancelled;
}

}  // namespace

QString RunQueuePanel::state_name(State state) {
    switch (state) {
        case State::Waiting: return tr("waiting");
        case State::Running: return tr("running");
        case State::Done: return tr("done");
        case State::Failed: return tr("failed");
        case State::Cancelled: return tr("cancelled");
    }
    return {};
}

RunQueuePanel::RunQueuePanel(QWidget* parent)
    : QWidget(parent), list_(new QListWidget(this)), remove_(new QPushButton(tr("Remove"), this)),
      clear_(new QPushButton(tr("Clear finished"), this)) {
    auto* title = new QLabel(tr("<b>Queued runs</b>"), this);
    list_->setToolTip(tr("Summaries and classifications asked for during a run wait here; waiting summaries start "
                         "together when the run ends. Delete removes a waiting one"));
    // A narrow library column must not hide the state behind a sideways scroll: long file
    // names are shortened in the middle, and each line's tooltip holds it whole.
    list_->setTextElideMode(Qt::ElideMiddle);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    remove_->setToolTip(tr("Remove the selected waiting document from the queue (Delete)"));
    auto* remove_key = new QAction(tr("Remove from queue"), list_);
    remove_key->setShortcut(QKeySequence::Delete);
    remove_key->setShortcutContext(Qt::WidgetShortcut);
    list_->addAction(remove_key);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(remove_);
    buttons->addStretch();
    buttons->addWidget(clear_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(title);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);
    connect(remove_key, &QAction::triggered, this, &RunQueuePanel::remove_selected);
    connect(remove_, &QPushButton::clicked, this, &RunQueuePanel::remove_selected);
    connect(clear_, &QPushButton::clicked, this, &RunQueuePanel::clear_finished);
    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        remove_->setEnabled(row >= 0 && row < entries_.size() && entries_[row].state == State::Waiting);
    });
    rebuild();
}

int RunQueuePanel::add(qint64 document_id, const QString& name, Task task) {
    entries_.push_back({++last_id_, document_id, name, State::Waiting, task});
    rebuild();
    return last_id_;
}

void RunQueuePanel::set_state(int id, State state) { set_states({id}, state); }

void RunQueuePanel::set_states(const QVector<int>& ids, State state) {
    for (Entry& e : entries_)
        if (ids.contains(e.id)) e.state = state;
    // Keep the newest finished entries only.
    int finished_seen = 0;
    for (int i = int(entries_.size()) - 1; i >= 0; --i)
        if (finished(entries_[i].state) && ++finished_seen > kKeepFinished) entries_.remove(i);
    rebuild();
}

std::optional<RunQueuePanel::Entry> RunQueuePanel::next_waiting() const {
    for (const Entry& e : entries_)
        if (e.state == State::Waiting) return e;
    return std::nullopt;
}

QVector<RunQueuePanel::Entry> RunQueuePanel::waiting(Task task, int at_most) const {
    QVector<Entry> out;
    for (const Entry& e : entries_)
        if (e.state == State::Waiting && e.task == task && int(out.size()) < at_most) out.push_back(e);
    return out;
}

std::optional<RunQueuePanel::Entry> RunQueuePanel::entry(int id) const {
    for (const Entry& e : entries_)
        if (e.id == id) return e;
    return std::nullopt;
}

bool RunQueuePanel::remove(int id) {
    const auto it = std::find_if(entries_.begin(), entries_.end(), [id](const Entry& e) { return e.id == id; });
    if (it == entries_.end() || it->state != State::Waiting) return false;
    entries_.erase(it);
    rebuild();
    emit removed(id);
    return true;
}

bool RunQueuePanel::is_waiting(qint64 document_id, Task task) const {
    return std::any_of(entries_.begin(), entries_.end(), [document_id, task](const Entry& e) {
        return e.document_id == document_id && e.task == task && e.state == State::Waiting;
    });
}

int RunQueuePanel::waiting_count() const {
    return int(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.state == State::Waiting; }));
}

void RunQueuePanel::cancel_waiting() {
    for (Entry& e : entries_)
        if (e.state == State::Waiting) e.state = State::Cancelled;
    rebuild();
}

void RunQueuePanel::clear_finished() {
    entries_.removeIf([](const Entry& e) { return finished(e.state); });
    rebuild();
}

void RunQueuePanel::remove_selected() {
    const int row = list_->currentRow();
    if (row >= 0 && row < entries_.size()) remove(entries_[row].id);
}

void RunQueuePanel::rebuild() {
    const int row = list_->currentRow();
    list_->clear();
    int position = 0;
    for (const Entry& e : entries_) {
        const QString what = e.task == Task::Classify ? tr("Classify %1").arg(e.name) : e.name;
        QString line = QStringLiteral("%1 — %2").arg(what, state_name(e.state));
        if (e.state == State::Waiting) line += tr(" (%1 in line)").arg(++position);
        auto* item = new QListWidgetItem(line, list_);
        item->setToolTip(line);
        item->setData(Qt::UserRole, e.id);
        if (finished(e.state)) item->setForeground(palette().brush(QPalette::PlaceholderText));
        if (e.state == State::Running) {
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
    }
    list_->setCurrentRow(std::min(row, list_->count() - 1));
    const int now = list_->currentRow();
    remove_->setEnabled(now >= 0 && now < entries_.size() && entries_[now].state == State::Waiting);
    clear_->setEnabled(std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return finished(e.state); }));
    // Shown once a real queue forms (something waits behind a run); hidden again when cleared.
    const bool running = std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.state == State::Running; });
    if (running && waiting_count() > 0) setVisible(true);
    if (entries_.isEmpty()) setVisible(false);
}

}  // namespace precis::ui
