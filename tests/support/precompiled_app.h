#pragma once
// The app tests' precompiled header (tests/CMakeLists.txt): the common one and the Qt Core
// classes most of them use.
#include "tests/support/precompiled_common.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
