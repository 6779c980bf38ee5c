#pragma once
// Settings > Summaries, "Default model": the one default the window and every `precis`
// command summarize with when no other folder is named. It is kept in one place only,
// app/models/model_store (what `precis model default NAME` writes); this box lists the
// summarizers Precis can run (installed and in the HuggingFace cache), shows which one is
// the default, and writes the choice there when Settings is accepted.
#include <QWidget>

class QComboBox;
class QLabel;

namespace precis::ui {

class DefaultModelBox : public QWidget {
    Q_OBJECT
public:
    explicit DefaultModelBox(QWidget* parent = nullptr);

    // Reads the models and the persisted default again (after a download or import).
    void refresh();
    QString persisted() const { return persisted_; }  // the default as stored; empty: none
    QString chosen() const;                           // what the box shows now
    bool changed() const;                             // OK would store another name
    // Persists the choice. Returns the reason in one sentence when it cannot (empty: done).
    QString apply();
    QComboBox* combo() const { return combo_; }

private:
    QComboBox* combo_;
    QLabel* note_;
    QString persisted_;
};

}  // namespace precis::ui
