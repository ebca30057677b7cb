#include "changelog.h"

#include <QLocale>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace Tether::Docgen {

namespace {

// `text` after `first` and then `rest` on each line, wrapped at 80 characters.
QString wrappedItem(const QString &text, const QString &first, const QString &rest)
{
    QString out;
    QString line = first;
    bool lineHasWords = false;
    for (const QString &word : text.simplified().split(u' ', Qt::SkipEmptyParts)) {
        if (lineHasWords && line.size() + 1 + word.size() > 80) {
            out += line + u'\n';
            line = rest;
            lineHasWords = false;
        }
        line += (lineHasWords ? u" "_s : QString()) + word;
        lineHasWords = true;
    }
    return out + line + u'\n';
}

// Markdown's inline code and links as plain text.
QString plainText(QString text)
{
    static const QRegularExpression link(u"\\[([^\\]]*)\\]\\([^)]*\\)"_s);
    return text.replace(link, u"\\1"_s).remove(u'`');
}

} // namespace

QList<Release> parseChangelog(const QString &markdown, QString *error)
{
    static const QRegularExpression releaseHeading(u"^## \\[([^\\]]+)\\](?: - (\\d{4}-\\d{2}-\\d{2}))?\\s*$"_s);
    QList<Release> releases;
    bool inRelease = false;
    const QStringList lines = markdown.split(u'\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (line.startsWith(u"## ")) {
            const QRegularExpressionMatch match = releaseHeading.match(line);
            if (!match.hasMatch()) {
                *error = u"line %1: '%2' is not a release heading such as '## [0.1.0] - 2026-11-30'"_s.arg(i + 1).arg(line);
                return {};
            }
            inRelease = match.captured(1) != u"Unreleased";
            if (!inRelease)
                continue;
            const QDate date = QDate::fromString(match.captured(2), Qt::ISODate);
            if (!date.isValid()) {
                *error = u"line %1: release %2 has no date (YYYY-MM-DD)"_s.arg(i + 1).arg(match.captured(1));
                return {};
            }
            releases.append({match.captured(1), date, {}});
        } else if (!inRelease) {
            continue;
        } else if (line.startsWith(u"### ")) {
            releases.last().groups.append({line.mid(4).trimmed(), {}});
        } else if (line.startsWith(u"- ")) {
            if (releases.last().groups.isEmpty())
                releases.last().groups.append({u"Changed"_s, {}});
            releases.last().groups.last().items.append(plainText(line.mid(2)));
        } else if (line.startsWith(u"  ") && !line.trimmed().isEmpty() && !releases.last().groups.isEmpty()
                   && !releases.last().groups.last().items.isEmpty()) {
            releases.last().groups.last().items.last() += u' ' + plainText(line.trimmed());
        }
    }
    if (releases.isEmpty())
        *error = u"no release: add one such as '## [0.1.0] - 2026-11-30'"_s;
    return releases;
}

QString debianChangelog(const QList<Release> &releases, const QString &package, const QString &maintainer)
{
    QString out;
    for (const Release &release : releases) {
        if (!out.isEmpty())
            out += u'\n';
        out += u"%1 (%2) unstable; urgency=medium\n\n"_s.arg(package, release.version);
        for (const Release::Group &group : release.groups) {
            out += u"  * "_s + group.title + u":\n"_s;
            for (const QString &item : group.items)
                out += wrappedItem(item, u"    - "_s, u"      "_s);
        }
        // RFC 5322 as Debian wants it, in English whatever the locale.
        const QString date = QLocale::c().toString(release.date, u"ddd, dd MMM yyyy"_s) + u" 00:00:00 +0000"_s;
        out += u"\n -- %1  %2\n"_s.arg(maintainer, date);
    }
    return out;
}

QString appStreamReleases(const QList<Release> &releases)
{
    QString out = u"<releases>\n"_s;
    for (const Release &release : releases) {
        out += u"    <release version=\"%1\" date=\"%2\">\n      <description>\n"_s.arg(
            release.version.toHtmlEscaped(), release.date.toString(Qt::ISODate));
        for (const Release::Group &group : release.groups) {
            out += u"        <p>%1:</p>\n        <ul>\n"_s.arg(group.title.toHtmlEscaped());
            for (const QString &item : group.items)
                out += u"          <li>%1</li>\n"_s.arg(item.toHtmlEscaped());
            out += u"        </ul>\n"_s;
        }
        out += u"      </description>\n    </release>\n"_s;
    }
    return out + u"  </releases>"_s;
}

} // namespace Tether::Docgen
