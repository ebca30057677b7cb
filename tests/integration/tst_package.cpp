// The Debian package as a user gets it: built by scripts/package.sh (from this build tree: the
// same CPack configuration as a release tree's), judged by Debian's and freedesktop.org's own
// tools, and run from where `dpkg -x` unpacked it.
#include "support/runprogram.h"
#include "support/testfiles.h"

#include <QDir>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

// The version of CHANGELOG.md's latest release: "## [0.1.0] - 2026-11-30".
QString changelogVersion()
{
    static const QRegularExpression release(u"^## \\[(\\d[^\\]]*)\\]"_s, QRegularExpression::MultilineOption);
    return release.match(QString::fromUtf8(readFile(QStringLiteral(TETHER_SOURCE_DIR "/CHANGELOG.md")))).captured(1);
}

const QStringList &programs()
{
    static const QStringList names{u"tether"_s, u"tetherctl"_s, u"tether-launcher"_s, u"tether-demo-server"_s};
    return names;
}

} // namespace

class TestPackage final : public QObject
{
    Q_OBJECT

private:
    QString installed(const QString &path) const { return m_root.filePath(path.mid(1)); }

    QString m_package;
    QTemporaryDir m_root;
    QStringList m_contents;

private slots:
    void initTestCase()
    {
        const ProgramRun build = runProgram(u"bash"_s, {QStringLiteral(TETHER_SOURCE_DIR "/scripts/package.sh"),
                                                        QStringLiteral(TETHER_PACKAGE_TREE)},
                                            QProcessEnvironment::systemEnvironment(), 90000);
        QVERIFY2(build.exitCode == 0, qPrintable(build.err.right(4000)));
        m_package = build.out.trimmed().section(u'\n', -1);
        QVERIFY2(m_package.endsWith(u".deb"_s) && QFile::exists(m_package), qPrintable(build.out));

        const ProgramRun contents = runProgram(u"dpkg-deb"_s, {u"--contents"_s, m_package});
        QCOMPARE(contents.exitCode, 0);
        // "-rwxr-xr-x root/root 1234 2026-11-30 00:00 ./usr/bin/tether": the path, without its leading dot.
        for (const QString &line : contents.out.split(u'\n', Qt::SkipEmptyParts))
            m_contents.append(line.section(u' ', -1).mid(1));

        QVERIFY(m_root.isValid());
        const ProgramRun unpack = runProgram(u"dpkg-deb"_s, {u"-x"_s, m_package, m_root.path()});
        QVERIFY2(unpack.exitCode == 0, qPrintable(unpack.err));
    }

    void contains_data()
    {
        QTest::addColumn<QString>("path");
        QStringList paths{u"/usr/share/bash-completion/completions/tetherctl"_s,
                          u"/usr/share/zsh/vendor-completions/_tetherctl"_s,
                          u"/usr/share/fish/vendor_completions.d/tetherctl.fish"_s,
                          u"/usr/share/applications/io.github.tether.Tether.desktop"_s,
                          u"/usr/share/metainfo/io.github.tether.Tether.metainfo.xml"_s,
                          u"/usr/share/icons/hicolor/scalable/apps/io.github.tether.Tether.svg"_s,
                          u"/usr/share/doc/tether/copyright"_s, u"/usr/share/doc/tether/changelog.gz"_s,
                          u"/usr/share/doc/tether/README.md.gz"_s, u"/usr/share/lintian/overrides/tether"_s,
                          u"/usr/lib/systemd/user/tether-gateway.service"_s,
                          u"/usr/lib/systemd/user/tether-daemon.service"_s};
        for (const QString &program : programs()) {
            paths.append(u"/usr/bin/"_s + program);
            paths.append(u"/usr/share/man/man1/%1.1.gz"_s.arg(program));
        }
        for (const int size : {16, 24, 32, 48, 64, 128, 256, 512})
            paths.append(u"/usr/share/icons/hicolor/%1x%1/apps/io.github.tether.Tether.png"_s.arg(size));
        // The user guide the README links to, beside it in docs/.
        for (const QString &page : QDir(QStringLiteral(TETHER_SOURCE_DIR "/docs")).entryList({u"*.md"_s}, QDir::Files))
            paths.append(u"/usr/share/doc/tether/docs/%1.gz"_s.arg(page));
        for (const QString &path : paths)
            QTest::newRow(qPrintable(path)) << path;
    }

    void contains()
    {
        QFETCH(QString, path);
        QVERIFY2(m_contents.contains(path), qPrintable(m_contents.join(u'\n')));
    }

    void controlFields_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("pattern");

        QTest::newRow("Package") << u"Package"_s << u"^tether$"_s;
        QTest::newRow("Version is the changelog's") << u"Version"_s << u"^%1$"_s.arg(QRegularExpression::escape(changelogVersion()));
        QTest::newRow("Version is the build's") << u"Version"_s << u"^%1$"_s.arg(QRegularExpression::escape(QStringLiteral(TETHER_VERSION)));
        QTest::newRow("Maintainer") << u"Maintainer"_s << u"^[^<>]+ <[^@<>]+@[^@<>]+>$"_s;
        QTest::newRow("Section") << u"Section"_s << u"^utils$"_s;
        QTest::newRow("Description") << u"Description"_s << u"^connection manager for MCP servers\n"_s;
        QTest::newRow("Homepage") << u"Homepage"_s << u"^https://"_s;
        // Computed from what the programs link by dpkg-shlibdeps, with the versions they need.
        for (const char *library : {"libc6", "libstdc\\+\\+6", "libqt6core6", "libqt6network6", "libqt6widgets6", "libqt6gui6"})
            QTest::addRow("Depends on %s", library) << u"Depends"_s << u"(^|, )%1 \\(>= [^)]+\\)"_s.arg(QLatin1StringView(library));
        QTest::newRow("Depends on spdlog") << u"Depends"_s << u"(^|, )libspdlog1\\.[0-9]+"_s;
        QTest::newRow("Recommends xdg-utils") << u"Recommends"_s << u"(^|, )xdg-utils(,|$)"_s;
    }

    void controlFields()
    {
        QFETCH(QString, field);
        QFETCH(QString, pattern);
        const ProgramRun run = runProgram(u"dpkg-deb"_s, {u"--field"_s, m_package, field});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QRegularExpression(pattern)), qPrintable(field + u": "_s + run.out));
    }

    // No error and no warning; what lintian says besides (its informational tags) is printed.
    void lintianAcceptsIt()
    {
        const ProgramRun run = runProgram(u"lintian"_s, {u"--fail-on"_s, u"error,warning"_s, u"--display-info"_s, m_package},
                                          QProcessEnvironment::systemEnvironment(), 5 * 60 * 1000);
        qInfo().noquote() << "lintian:" << (run.out.isEmpty() ? u"(nothing to say)"_s : u'\n' + run.out.trimmed());
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    }

    void appStreamMetadataIsValid()
    {
        // Not --pedantic: it would only say that the id has capitals, as freedesktop.org's own ids do.
        const ProgramRun run = runProgram(u"appstreamcli"_s, {u"validate"_s, u"--no-net"_s,
                                                              installed(u"/usr/share/metainfo/io.github.tether.Tether.metainfo.xml"_s)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY2(run.out.contains(u"Validation was successful"_s)
                     && !run.out.contains(QRegularExpression(u"^[EWI]: "_s, QRegularExpression::MultilineOption)),
                 qPrintable(run.out));
    }

    void desktopEntryIsValid()
    {
        const ProgramRun run = runProgram(u"desktop-file-validate"_s,
                                          {installed(u"/usr/share/applications/io.github.tether.Tether.desktop"_s)});
        QCOMPARE(run.out + run.err, QString());
        QCOMPARE(run.exitCode, 0);
    }

    void installedProgramsSayTheirVersion_data()
    {
        QTest::addColumn<QString>("program");
        for (const QString &program : programs())
            QTest::newRow(qPrintable(program)) << program;
    }

    void installedProgramsSayTheirVersion()
    {
        QFETCH(QString, program);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(u"DISPLAY"_s);
        environment.remove(u"QT_QPA_PLATFORM"_s);
        const ProgramRun run = runProgram(installed(u"/usr/bin/"_s + program), {u"--version"_s}, environment);
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, program + u' ' + QStringLiteral(TETHER_VERSION) + u'\n');
    }

    void systemdUserUnitsRunTetherctl_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("execStart");
        QTest::newRow("the gateway") << u"tether-gateway.service"_s << u"ExecStart=/usr/bin/tetherctl serve --http"_s;
        QTest::newRow("the daemon") << u"tether-daemon.service"_s << u"ExecStart=/usr/bin/tetherctl daemon"_s;
    }

    // The systemd user units run the installed tetherctl serve --http or daemon, restarted when it fails.
    void systemdUserUnitsRunTetherctl()
    {
        QFETCH(QString, name);
        QFETCH(QString, execStart);
        const QString unit = QString::fromUtf8(readFile(installed(u"/usr/lib/systemd/user/"_s + name)));
        const auto line = [](const QString &text) {
            return QRegularExpression(u"^"_s + QRegularExpression::escape(text) + u"$"_s, QRegularExpression::MultilineOption);
        };
        for (const QString &expected : {execStart, u"Restart=on-failure"_s,
                                        u"KillMode=mixed"_s, u"WantedBy=default.target"_s})
            QVERIFY2(unit.contains(line(expected)), qPrintable(expected + u" is not in:\n"_s + unit));

        // systemd's own judgement, on a copy that starts the unpacked tetherctl (verify wants the
        // program to exist).
        const QString analyze = QStandardPaths::findExecutable(u"systemd-analyze"_s);
        if (analyze.isEmpty())
            QSKIP("systemd-analyze is not installed (apt-get install systemd): the unit's lines are checked only");
        QTemporaryDir folder;
        const QString copy = folder.filePath(name);
        QVERIFY(writeFile(copy, QString(unit).replace(u"/usr/bin/tetherctl"_s, installed(u"/usr/bin/tetherctl"_s)).toUtf8()));
        QVERIFY(QFile::setPermissions(folder.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, folder.path()); // a user manager needs one, even offline
        const ProgramRun run = runProgram(analyze, {u"verify"_s, u"--user"_s, u"--man=no"_s, copy}, environment);
        QVERIFY2(run.exitCode == 0 && run.err.isEmpty(), qPrintable(run.out + run.err));
    }

    // With no config file, the installed tetherctl runs the built-in demo: the demo servers it
    // starts are the installed ones, beside it (${tether:bindir}).
    void installedTetherctlRunsTheBuiltInDemo()
    {
        QTemporaryDir configHome;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_CONFIG_HOME"_s, configHome.path());
        environment.insert(u"PATH"_s, u"/usr/bin:/bin"_s);
        const ProgramRun run = runProgram(installed(u"/usr/bin/tetherctl"_s), {u"status"_s}, environment, 60000);
        // No Tether runs the demo: status ran its servers itself, and says so (exit 5).
        QCOMPARE(run.exitCode, 5);
        QVERIFY2(run.err.contains(u"no Tether runs"_s), qPrintable(run.err));
        const auto row = [](const QString &pattern) { return QRegularExpression(pattern, QRegularExpression::MultilineOption); };
        QVERIFY2(run.out.contains(row(u"^demo +Connected +\\d+ +\\d+ +stdio"_s)), qPrintable(run.out));
        QVERIFY2(run.out.contains(row(u"^flaky +Connected "_s)), qPrintable(run.out));
        QVERIFY2(run.out.contains(row(u"^broken +Retrying .*refusing to start"_s)), qPrintable(run.out));
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
