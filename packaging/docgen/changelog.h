#pragma once

#include <QDate>
#include <QList>
#include <QString>
#include <QStringList>

namespace Tether::Docgen {

// One release of CHANGELOG.md: "## [0.1.0] - 2026-11-30", its "### Added" groups and their items.
struct Release
{
    struct Group
    {
        QString title;
        QStringList items;
    };

    QString version;
    QDate date;
    QList<Group> groups;
};

// The releases of a changelog kept as keepachangelog.com describes, newest first; an
// "Unreleased" section is not a release. `error` says what could not be read.
QList<Release> parseChangelog(const QString &markdown, QString *error);

// The same releases as a Debian changelog (debian/changelog's format), lines of at most 80
// characters.
QString debianChangelog(const QList<Release> &releases, const QString &package, const QString &maintainer);

// The same releases as AppStream's <releases> element, indented as a child of <component>.
QString appStreamReleases(const QList<Release> &releases);

} // namespace Tether::Docgen
