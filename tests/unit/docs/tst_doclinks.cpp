// The README and the user guide in docs/ link to each other by relative paths and #anchors: every
// link must lead somewhere, and every page of the guide must be reachable from the README.
#include "support/testfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

// A heading's anchor as GitHub makes it: the heading's text in lower case, without the characters
// that are neither letters, digits, marks, '_', '-' nor spaces, spaces made hyphens.
QString anchorOf(const QString &headingText)
{
    static const QRegularExpression link(u"!?\\[([^\\]]*)\\]\\([^)]*\\)"_s);
    QString text = headingText;
    text.replace(link, u"\\1"_s);
    QString anchor;
    for (const QChar c : text.toLower()) {
        if (c == u' ')
            anchor += u'-';
        else if (c.isLetterOrNumber() || c.isMark() || c == u'-' || c.category() == QChar::Punctuation_Connector)
            anchor += c;
    }
    return anchor;
}

// The lines of a Markdown text outside fenced code blocks; a line within one is left empty.
QStringList linesOutsideCode(const QString &markdown)
{
    static const QRegularExpression fence(u"^ {0,3}(`{3,}|~{3,})"_s);
    QStringList lines = markdown.split(u'\n');
    QString openFence;
    for (QString &line : lines) {
        const QRegularExpressionMatch match = fence.match(line);
        if (openFence.isEmpty() && match.hasMatch()) {
            openFence = match.captured(1);
            line.clear();
        } else if (!openFence.isEmpty()) {
            if (match.hasMatch() && match.captured(1).startsWith(openFence) && line.trimmed() == match.captured(1))
                openFence.clear();
            line.clear();
        }
    }
    return lines;
}

// The anchors of a Markdown text's headings; a heading met again gets "-1", "-2", … as on GitHub.
QSet<QString> anchorsOf(const QString &markdown)
{
    static const QRegularExpression heading(u"^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$"_s);
    QSet<QString> anchors;
    QHash<QString, int> seen;
    for (const QString &line : linesOutsideCode(markdown)) {
        const QRegularExpressionMatch match = heading.match(line);
        if (!match.hasMatch())
            continue;
        const QString anchor = anchorOf(match.captured(1));
        const int count = seen.value(anchor);
        seen.insert(anchor, count + 1);
        anchors.insert(count == 0 ? anchor : anchor + u'-' + QString::number(count));
    }
    return anchors;
}

// The targets of a Markdown text's inline links and images, as written ("docs/a.md#b", "#b"),
// leaving out code blocks and code spans.
QStringList linkTargetsOf(const QString &markdown)
{
    static const QRegularExpression codeSpan(u"(`+).*?\\1"_s);
    static const QRegularExpression link(u"!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)"_s);
    QStringList targets;
    for (QString line : linesOutsideCode(markdown)) {
        line.remove(codeSpan);
        for (const QRegularExpressionMatch &match : link.globalMatch(line))
            targets.append(match.captured(1));
    }
    return targets;
}

bool isExternal(const QString &target)
{
    static const QRegularExpression scheme(u"^[A-Za-z][A-Za-z0-9+.-]*:"_s);
    return scheme.match(target).hasMatch();
}

// What is wrong with each relative link of the Markdown files, "FILE: TARGET: why", the files
// named relative to `root`.
QStringList brokenLinks(const QDir &root, const QStringList &files)
{
    QStringList broken;
    for (const QString &file : files) {
        const QString path = root.filePath(file);
        const QDir folder = QFileInfo(path).dir();
        for (const QString &target : linkTargetsOf(QString::fromUtf8(readFile(path)))) {
            if (isExternal(target))
                continue;
            const QString linked = target.section(u'#', 0, 0);
            const QString anchor = target.section(u'#', 1);
            const QString targetPath = linked.isEmpty() ? path : QDir::cleanPath(folder.filePath(linked));
            const auto report = [&](const QString &why) { broken.append(file + u": "_s + target + u": "_s + why); };
            if (!QFileInfo::exists(targetPath)) {
                report(u"no such file"_s);
            } else if (!anchor.isEmpty()) {
                if (!targetPath.endsWith(u".md"_s))
                    report(u"an anchor into a file that is not Markdown"_s);
                else if (!anchorsOf(QString::fromUtf8(readFile(targetPath))).contains(anchor))
                    report(u"no heading with this anchor"_s);
            }
        }
    }
    return broken;
}

// The Markdown files reachable from `start` by relative links, named relative to `root`.
QSet<QString> reachableFrom(const QDir &root, const QString &start)
{
    QSet<QString> reached{start};
    QStringList pending{start};
    while (!pending.isEmpty()) {
        const QString file = pending.takeLast();
        const QDir folder = QFileInfo(root.filePath(file)).dir();
        for (const QString &target : linkTargetsOf(QString::fromUtf8(readFile(root.filePath(file))))) {
            const QString linked = target.section(u'#', 0, 0);
            if (isExternal(target) || !linked.endsWith(u".md"_s))
                continue;
            const QString relative = root.relativeFilePath(QDir::cleanPath(folder.filePath(linked)));
            if (!reached.contains(relative)) {
                reached.insert(relative);
                pending.append(relative);
            }
        }
    }
    return reached;
}

QDir sourceRoot()
{
    return QDir(QStringLiteral(TETHER_SOURCE_DIR));
}

// README.md and every Markdown file of docs/, relative to the source folder.
QStringList documentationFiles()
{
    QStringList files{u"README.md"_s};
    const QStringList guide = QDir(sourceRoot().filePath(u"docs"_s)).entryList({u"*.md"_s}, QDir::Files, QDir::Name);
    for (const QString &page : guide)
        files.append(u"docs/"_s + page);
    return files;
}

} // namespace

class TestDocLinks final : public QObject
{
    Q_OBJECT

private slots:
    void anchorsAreGitHubs_data()
    {
        QTest::addColumn<QString>("heading");
        QTest::addColumn<QString>("anchor");
        QTest::newRow("words") << u"Connect a client"_s << u"connect-a-client"_s;
        QTest::newRow("colon") << u"Supervision: states and the reconnect policy"_s
                               << u"supervision-states-and-the-reconnect-policy"_s;
        QTest::newRow("apostrophe") << u"The servers' requests"_s << u"the-servers-requests"_s;
        QTest::newRow("code and underscore") << u"`tether_core` and `--help`"_s << u"tether_core-and---help"_s;
        QTest::newRow("symbols") << u"File ▸ Gateway…"_s << u"file--gateway"_s;
        QTest::newRow("link") << u"See [the window](window.md)"_s << u"see-the-window"_s;
    }

    void anchorsAreGitHubs()
    {
        QFETCH(QString, heading);
        QFETCH(QString, anchor);
        QCOMPARE(anchorOf(heading), anchor);
    }

    // Headings in code blocks are none; a heading met twice gets a numbered anchor.
    void anchorsOfAText()
    {
        const QString markdown = u"# Title\n\n## Logs\n\n```sh\n# not a heading\n```\n\n## Logs\n\n### Logs ###\n"_s;
        QCOMPARE(anchorsOf(markdown), (QSet<QString>{u"title"_s, u"logs"_s, u"logs-1"_s, u"logs-2"_s}));
    }

    // Links in code spans and code blocks are text; images count as links.
    void linkTargetsOfAText()
    {
        const QString markdown = u"See [a](a.md#x) and ![b](b.png \"B\"), not `[c](c.md)`.\n\n"
                                 "```\n[d](d.md)\n```\n[e](https://example.com) [f](#f)\n"_s;
        QCOMPARE(linkTargetsOf(markdown), (QStringList{u"a.md#x"_s, u"b.png"_s, u"https://example.com"_s, u"#f"_s}));
    }

    // The check itself finds a missing file, a missing anchor, and one in the same file.
    void brokenLinksAreFound()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QVERIFY(QDir(root.path()).mkdir(u"docs"_s));
        QVERIFY(writeFile(root.filePath(u"README.md"_s),
                          "# Start\n\n[ok](docs/page.md#part) [gone](docs/gone.md) [wrong](docs/page.md#whole)\n"
                          "[here](#start) [not here](#end) [web](https://example.com/#x)\n"));
        QVERIFY(writeFile(root.filePath(u"docs/page.md"_s), "# Page\n\n## Part\n\n[back](../README.md#start)\n"));

        const QStringList broken = brokenLinks(QDir(root.path()), {u"README.md"_s, u"docs/page.md"_s});
        QCOMPARE(broken, (QStringList{u"README.md: docs/gone.md: no such file"_s,
                                      u"README.md: docs/page.md#whole: no heading with this anchor"_s,
                                      u"README.md: #end: no heading with this anchor"_s}));
    }

    void everyLinkOfTheDocumentationResolves()
    {
        const QStringList files = documentationFiles();
        QVERIFY(files.contains(u"docs/tetherctl.md"_s));
        const QStringList broken = brokenLinks(sourceRoot(), files);
        QVERIFY2(broken.isEmpty(), qPrintable(broken.join(u'\n')));
    }

    // A page of the guide that nothing links to is one no reader finds.
    void everyPageIsReachableFromTheReadme()
    {
        const QSet<QString> reached = reachableFrom(sourceRoot(), u"README.md"_s);
        QStringList unreached;
        for (const QString &file : documentationFiles()) {
            if (!reached.contains(file))
                unreached.append(file);
        }
        QVERIFY2(unreached.isEmpty(), qPrintable(u"linked from nowhere: "_s + unreached.join(u", "_s)));
    }
};

QTEST_GUILESS_MAIN(TestDocLinks)
#include "tst_doclinks.moc"
