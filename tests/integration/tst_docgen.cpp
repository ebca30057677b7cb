// tether-docgen on CHANGELOG.md as the build runs it: the Debian changelog it renders, and the
// changelogs it refuses (the build stops on them) with what to do.
#include "support/runprogram.h"
#include "support/testfiles.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

class TestDocgen final : public QObject
{
    Q_OBJECT

private:
    // tether-docgen's Debian changelog of `markdown`, or its error.
    ProgramRun debianChangelogOf(const QByteArray &markdown)
    {
        const QString changelog = m_files.filePath(u"CHANGELOG.md"_s);
        const QString rendered = m_files.filePath(u"changelog"_s);
        QFile::remove(rendered);
        if (!writeFile(changelog, markdown))
            return {};
        ProgramRun run = runProgram(QStringLiteral(TETHER_DOCGEN),
                                    {u"changelog"_s, changelog, u"The Maintainers <team@example.org>"_s, rendered});
        if (run.exitCode == 0)
            run.out = QString::fromUtf8(readFile(rendered));
        return run;
    }

    QTemporaryDir m_files;

private slots:
    // Newest first, the unreleased changes left out, items wrapped within 80 columns as Debian's
    // changelogs are.
    void rendersTheDebianChangelog()
    {
        const QByteArray markdown = "# Changelog\n\n"
                                    "## [Unreleased]\n\n- Not yet.\n\n"
                                    "## [" TETHER_VERSION "] - 2026-11-30\n\n### Added\n"
                                    "- `tetherctl servers`, which prints the names of the servers of the config file without "
                                    "starting\n  any of them.\n\n### Fixed\n- A [link](https://example.org) kept as its text.\n\n"
                                    "## [0.0.1] - 2026-01-05\n\n- The first.\n";
        const ProgramRun run = debianChangelogOf(markdown);
        QCOMPARE(run.err, QString());
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, u"tether (" TETHER_VERSION ") unstable; urgency=medium\n\n"
                          "  * Added:\n"
                          "    - tetherctl servers, which prints the names of the servers of the config\n"
                          "      file without starting any of them.\n"
                          "  * Fixed:\n"
                          "    - A link kept as its text.\n\n"
                          " -- The Maintainers <team@example.org>  Mon, 30 Nov 2026 00:00:00 +0000\n\n"
                          "tether (0.0.1) unstable; urgency=medium\n\n"
                          "  * Changed:\n"
                          "    - The first.\n\n"
                          " -- The Maintainers <team@example.org>  Mon, 05 Jan 2026 00:00:00 +0000\n"_s);
    }

    void refuses_data()
    {
        QTest::addColumn<QByteArray>("markdown");
        QTest::addColumn<QString>("error");

        QTest::newRow("the latest release is not Tether's version")
            << QByteArray("## [99.0.0] - 2026-11-30\n- Now.\n## [" TETHER_VERSION "] - 2026-01-05\n- Then.\n")
            << u"the latest release is 99.0.0 but Tether's version (project() in CMakeLists.txt) is " TETHER_VERSION
               "; add an entry '## [" TETHER_VERSION "] - YYYY-MM-DD' saying what changed"_s;
        QTest::newRow("no release at all") << QByteArray("# Changelog\n\nNothing yet.\n")
                                           << u"no release: add one such as '## [0.1.0] - 2026-11-30'"_s;
        QTest::newRow("unreleased changes alone") << QByteArray("## [Unreleased]\n- Soon.\n")
                                                  << u"no release: add one such as '## [0.1.0] - 2026-11-30'"_s;
        QTest::newRow("a heading that names no release")
            << QByteArray("# Changelog\n\n## Next\n")
            << u"line 3: '## Next' is not a release heading such as '## [0.1.0] - 2026-11-30'"_s;
        QTest::newRow("a release without its date") << QByteArray("## [" TETHER_VERSION "]\n- Now.\n")
                                                    << u"line 1: release " TETHER_VERSION " has no date (YYYY-MM-DD)"_s;
        QTest::newRow("a date that is no date") << QByteArray("## [" TETHER_VERSION "] - 2026-13-40\n- Now.\n")
                                                << u"line 1: release " TETHER_VERSION " has no date (YYYY-MM-DD)"_s;
    }

    // The build stops with one line naming the file and what to do; nothing is written.
    void refuses()
    {
        QFETCH(QByteArray, markdown);
        QFETCH(QString, error);
        const ProgramRun run = debianChangelogOf(markdown);
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.err, u"tether-docgen: "_s + m_files.filePath(u"CHANGELOG.md"_s) + u": "_s + error + u'\n');
        QVERIFY(!QFile::exists(m_files.filePath(u"changelog"_s)));
    }
};

QTEST_GUILESS_MAIN(TestDocgen)
#include "tst_docgen.moc"
