#pragma once
// The strip above the panes that tells what kind of summaries the user gets when that is
// not what they would expect:
//  * no model installed: summaries are extractive, with links to download a model from the
//    catalog (the recommended one named with its size) or to use a folder already on disk;
//  * the fixtures' random test model chosen: a loud red warning that its output is
//    meaningless;
//  * otherwise hidden.
#include <QLabel>

#include "app/worker/worker_types.h"

namespace precis::ui {

class ModelBanner : public QLabel {
    Q_OBJECT
public:
    explicit ModelBanner(QWidget* parent = nullptr);
    void show_for(const ModelInfo& info);

signals:
    void download_requested();
    void use_folder_requested();
};

}  // namespace precis::ui
