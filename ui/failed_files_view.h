#pragma once
// The library panel's "Failed files" list: files batch jobs could not summarize, with the
// reason and how to try again. They never became documents, so the document table cannot
// show them; without this list a failure would be visible only in the batch run's report.
#include <QListWidget>

#include "app/library/library.h"

namespace precis::ui {

class FailedFilesView : public QListWidget {
    Q_OBJECT
public:
    explicit FailedFilesView(QWidget* parent = nullptr);

    void set_files(const QVector<FailedBatchFile>& files);
};

}  // namespace precis::ui
