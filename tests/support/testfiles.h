#pragma once

#include "config/configfile.h"

#include <QByteArray>
#include <QFile>
#include <QJsonObject>
#include <QString>

namespace Tether::Testing {

// Replaces the file's content; false when it could not be written whole.
inline bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

// The file's content; empty when it cannot be read.
inline QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Writes `root` over the config at `path` whatever the file holds now, through editConfig as every
// writer does.
inline bool saveRoot(const QString &path, const QJsonObject &root, QString *error, const JsonKeyOrder &orderWithoutFile = {},
                     QByteArray *written = nullptr)
{
    const auto replace = [&root](const ConfigOnDisk &, QString *) { return std::optional<QJsonObject>(root); };
    return editConfig(path, replace, error, orderWithoutFile, written);
}

} // namespace Tether::Testing
