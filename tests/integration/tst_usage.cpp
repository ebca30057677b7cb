// How tether and tetherctl say how they are used: --help and --version with no display, tetherctl's
// short --help and the help of each command, and the user guide's tetherctl page
// (docs/tetherctl.md) naming the same commands and options as they do.
#include "support/runprogram.h"
#include "support/testfiles.h"

#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

// The environment of a session without a display: no X, no Wayland, no Qt platform chosen.
QProcessEnvironment withoutDisplay()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : {u"DISPLAY"_s, u"WAYLAND_DISPLAY"_s, u"QT_QPA_PLATFORM"_s})
        environment.remove(name);
    return environment;
}

// Every match of `pattern`'s first group in `text`.
QSet<QString> capturedAll(const QString &text, const QRegularExpression &pattern)
{
    QSet<QString> found;
    for (const QRegularExpressionMatch &match : pattern.globalMatch(text))
        found.insert(match.captured(1));
    return found;
}

// The tetherctl page's section of that title, up to the next one of its level.
QString readmeSection(const QString &title)
{
    const QString readme = QString::fromUtf8(readFile(QStringLiteral(TETHER_README)));
    const qsizetype start = readme.indexOf(u"\n## "_s + title + u'\n');
    if (start < 0)
        return {};
    const qsizetype end = readme.indexOf(u"\n## "_s, start + 1);
    return readme.mid(start, end < 0 ? -1 : end - start);
}

QString tetherctlHelp(const QStringList &arguments = {u"--help"_s})
{
    return runProgram(QStringLiteral(TETHERCTL), arguments).out;
}

// The commands the short --help lists: "  status   The servers' states…".
QStringList tetherctlCommands()
{
    QStringList commands;
    static const QRegularExpression commandLine(u"^  ([a-z]+)(?: |$)"_s, QRegularExpression::MultilineOption);
    for (const QRegularExpressionMatch &match : commandLine.globalMatch(tetherctlHelp()))
        commands.append(match.captured(1));
    return commands;
}

} // namespace

class TestUsage final : public QObject
{
    Q_OBJECT

private slots:
    void helpAndVersionNeedNoDisplay_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("argument");
        QTest::addColumn<QString>("firstLine");

        const QString version = QStringLiteral(TETHER_VERSION);
        QTest::newRow("tether --help") << QStringLiteral(TETHER) << u"--help"_s << u"Usage: tether [--config FILE]"_s;
        QTest::newRow("tether -h") << QStringLiteral(TETHER) << u"-h"_s << u"Usage: tether [--config FILE]"_s;
        QTest::newRow("tether --version") << QStringLiteral(TETHER) << u"--version"_s << u"tether "_s + version;
        QTest::newRow("tetherctl --help") << QStringLiteral(TETHERCTL) << u"--help"_s << u"Usage: tetherctl COMMAND [OPTIONS]"_s;
        QTest::newRow("tetherctl --version") << QStringLiteral(TETHERCTL) << u"--version"_s << u"tetherctl "_s + version;
    }

    void helpAndVersionNeedNoDisplay()
    {
        QFETCH(QString, program);
        QFETCH(QString, argument);
        QFETCH(QString, firstLine);
        const ProgramRun run = runProgram(program, {argument}, withoutDisplay());
        QCOMPARE(run.err, QString());
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out.section(u'\n', 0, 0), firstLine);
    }

    // Help lines stay within a terminal's 80 columns.
    void helpFitsEightyColumns_data()
    {
        QTest::addColumn<QString>("program");
        QTest::newRow("tether") << QStringLiteral(TETHER);
        QTest::newRow("tetherctl") << QStringLiteral(TETHERCTL);
    }

    void helpFitsEightyColumns()
    {
        QFETCH(QString, program);
        QList<QStringList> helps{{u"--help"_s}};
        if (program == QStringLiteral(TETHERCTL)) {
            for (const QString &command : tetherctlCommands())
                helps.append({u"--help"_s, command});
        }
        for (const QStringList &arguments : std::as_const(helps)) {
            const ProgramRun run = runProgram(program, arguments, withoutDisplay());
            QCOMPARE(run.exitCode, 0);
            const QStringList lines = run.out.split(u'\n');
            for (const QString &line : lines)
                QVERIFY2(line.size() <= 80 || !line.contains(u' '), qPrintable(arguments.join(u' ') + u": "_s + line));
        }
    }

    // --help is a summary that fits a screen or two: every command once, on a line of its own.
    void tetherctlHelpIsASummary()
    {
        const QString help = tetherctlHelp();
        QVERIFY2(help.count(u'\n') <= 70, qPrintable(help));
        const QStringList commands = tetherctlCommands();
        QCOMPARE(commands.size(), 20);
        QCOMPARE(QSet<QString>(commands.cbegin(), commands.cend()).size(), commands.size());
        QVERIFY(help.contains(u"tetherctl --help COMMAND"_s));
    }

    // The help of a command, asked either way: its usage, its own options, those of every command,
    // its examples and the exit statuses.
    void tetherctlHelpOfACommand_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("parts");

        QTest::newRow("call") << u"call"_s
                              << QStringList{u"Usage: tetherctl call [SERVER] TOOL ['JSON']\n"_s,
                                             u"       tetherctl call --stdio \"CMD ARGS...\" TOOL ['JSON']\n"_s,
                                             u"\n  --header 'NAME: VALUE'"_s, u"\n  --timeout-ms N"_s,
                                             u"tetherctl call github search_repositories"_s, u"Exit status:\n"_s};
        QTest::newRow("watch") << u"watch"_s
                               << QStringList{u"Usage: tetherctl watch [SERVER...]\n"_s, u"\n  --max-attempts N"_s,
                                              u"States (watch):\n"_s, u"--crash-after-ms 5000"_s};
        QTest::newRow("connect") << u"connect"_s << QStringList{u"\n  --dry-run"_s, u"\n  --transport stdio|http|sse"_s};
        // Forms that do different things each come with what they do.
        QTest::newRow("tools") << u"tools"_s
                               << QStringList{u"\n\ntetherctl tools --stdio \"CMD ARGS...\"\n    List the server's tools"_s,
                                              u"\n\ntetherctl tools --url URL\n    The same for a remote server."_s};
    }

    void tetherctlHelpOfACommand()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, parts);
        const ProgramRun before = runProgram(QStringLiteral(TETHERCTL), {u"--help"_s, command});
        const ProgramRun after = runProgram(QStringLiteral(TETHERCTL), {command, u"--help"_s, u"--json"_s});
        QCOMPARE(before.exitCode, 0);
        QCOMPARE(after.exitCode, 0);
        QCOMPARE(after.out, before.out);
        for (const QString &part : parts)
            QVERIFY2(before.out.contains(part), qPrintable(part));
        // Only its own options: those of other commands are in their help.
        QVERIFY(!before.out.contains(u"--no-bridge"_s));
    }

    // A command's help lists the exit statuses it can end with, not those of other commands.
    void tetherctlHelpOfACommandHasItsOwnExitStatuses_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("statuses");

        QTest::newRow("call") << u"call"_s << QStringList{u"0"_s, u"1"_s, u"2"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("status") << u"status"_s << QStringList{u"0"_s, u"2"_s, u"3"_s, u"4"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("tools") << u"tools"_s << QStringList{u"0"_s, u"2"_s, u"3"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("resources") << u"resources"_s << QStringList{u"0"_s, u"2"_s, u"3"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("prompts") << u"prompts"_s << QStringList{u"0"_s, u"2"_s, u"3"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("read") << u"read"_s << QStringList{u"0"_s, u"2"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("stop") << u"stop"_s << QStringList{u"0"_s, u"2"_s, u"5"_s, u"128+N"_s};
        QTest::newRow("connect") << u"connect"_s << QStringList{u"0"_s, u"2"_s, u"128+N"_s};
    }

    void tetherctlHelpOfACommandHasItsOwnExitStatuses()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, statuses);
        const ProgramRun run = runProgram(QStringLiteral(TETHERCTL), {command, u"--help"_s});
        QCOMPARE(run.exitCode, 0);
        const qsizetype start = run.out.indexOf(u"\nExit status:\n"_s);
        QVERIFY(start >= 0);
        QStringList listed;
        static const QRegularExpression term(u"^  (\\S+)"_s, QRegularExpression::MultilineOption);
        for (const QRegularExpressionMatch &match : term.globalMatch(run.out.sliced(start)))
            listed.append(match.captured(1));
        QCOMPARE(listed, statuses);
    }

    // A command that does not exist is named, with the one meant.
    void tetherctlHelpOfAMistypedCommand_data()
    {
        QTest::addColumn<QString>("asking");
        QTest::newRow("--help") << u"--help"_s;
        QTest::newRow("help") << u"help"_s;
    }

    void tetherctlHelpOfAMistypedCommand()
    {
        QFETCH(QString, asking);
        const ProgramRun run = runProgram(QStringLiteral(TETHERCTL), {asking, u"stauts"_s});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.out, QString());
        QCOMPARE(run.err, u"tetherctl: unknown command 'stauts'; did you mean status or start? (see tetherctl --help)\n"_s);
    }

    // "tetherctl help [COMMAND]" is --help, as in git.
    void tetherctlHelpAsACommand()
    {
        const ProgramRun summary = runProgram(QStringLiteral(TETHERCTL), {u"help"_s});
        QCOMPARE(summary.exitCode, 0);
        QCOMPARE(summary.out, tetherctlHelp());
        const ProgramRun ofStatus = runProgram(QStringLiteral(TETHERCTL), {u"help"_s, u"status"_s});
        QCOMPARE(ofStatus.exitCode, 0);
        QCOMPARE(ofStatus.out, runProgram(QStringLiteral(TETHERCTL), {u"status"_s, u"--help"_s}).out);
    }

    void tetherRejectsAnUnknownOption()
    {
        QProcessEnvironment environment = withoutDisplay();
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        const ProgramRun run = runProgram(QStringLiteral(TETHER), {u"--frobnicate"_s}, environment);
        QCOMPARE(run.exitCode, 1);
        // Qt may say something of its own on stderr first.
        QVERIFY2(run.err.contains(QRegularExpression(u"^tether: Unknown option 'frobnicate'.*tether --help"_s,
                                                     QRegularExpression::MultilineOption)),
                 qPrintable(run.err));
    }

    // The tetherctl page's option table lists what --help and the help of the commands list, no more
    // and no less: every option is documented somewhere tetherctl shows.
    void readmeListsTheOptionsOfHelp()
    {
        const QString section = readmeSection(u"Options"_s);
        QVERIFY2(!section.isEmpty(), "docs/tetherctl.md has no section '## Options'");
        // Its table's rows: | `--config FILE` | ... and | `-v`, `--verbose` | ...
        const QSet<QString> readme = capturedAll(section, QRegularExpression(u"(?:^\\| |, )`(--?[a-z][a-z-]*)"_s,
                                                                              QRegularExpression::MultilineOption));
        // Option lines of --help: "  --config FILE   The config file" and "  -v, --verbose".
        QSet<QString> help;
        static const QRegularExpression optionLine(u"^  (?:(-[a-z]), )?(--[a-z][a-z-]*)"_s, QRegularExpression::MultilineOption);
        QString helps = tetherctlHelp();
        for (const QString &command : tetherctlCommands())
            helps += tetherctlHelp({u"--help"_s, command});
        for (const QRegularExpressionMatch &match : optionLine.globalMatch(helps))
            help += QSet<QString>{match.captured(1), match.captured(2)};
        help.remove(QString());
        QVERIFY(help.contains(u"--config"_s) && help.contains(u"-v"_s));

        QStringList onlyInReadme = QSet<QString>(readme).subtract(help).values();
        QStringList onlyInHelp = QSet<QString>(help).subtract(readme).values();
        onlyInReadme.sort();
        onlyInHelp.sort();
        QCOMPARE(onlyInReadme, QStringList());
        QCOMPARE(onlyInHelp, QStringList());
    }

    // The commands of the tetherctl page's summary are those of --help.
    void readmeListsTheCommandsOfHelp()
    {
        const QString section = readmeSection(u"Commands"_s);
        QVERIFY2(!section.isEmpty(), "docs/tetherctl.md has no section '## Commands'");
        const QString summary = section.section(u"```sh\n"_s, 1, 1).section(u"```"_s, 0, 0);
        const QSet<QString> readme = capturedAll(summary, QRegularExpression(u"^tetherctl ([a-z]+)"_s,
                                                                              QRegularExpression::MultilineOption));
        const QStringList commands = tetherctlCommands();
        const QSet<QString> help(commands.cbegin(), commands.cend());
        QVERIFY(!help.isEmpty());
        QCOMPARE(readme, help);
    }
};

QTEST_GUILESS_MAIN(TestUsage)
#include "tst_usage.moc"
