#pragma once
// The status-bar corner that shows a running request: what stage it is in, a progress
// bar (busy indicator when the stage has no count), and a Cancel button; hidden while idle.
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace precis::ui {

class RunStatus : public QWidget {
    Q_OBJECT
public:
    explicit RunStatus(QWidget* parent = nullptr);

    void start(const QString& what);
    void set_stage(const QString& stage, int done, int total);
    void finish();
    bool running() const { return running_; }
    QLabel* stage_label() const { return stage_; }
    QProgressBar* bar() const { return bar_; }

signals:
    void cancel_requested();

private:
    QLabel* stage_;
    QProgressBar* bar_;
    QPushButton* cancel_;
    QString what_;
    bool running_ = false;
};

}  // namespace precis::ui
