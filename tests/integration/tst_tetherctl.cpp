// tetherctl as scripts use it: exit statuses, output on stdout, one line on stderr.
#include "config/configstore.h"
#include "support/httpfixture.h"
#include "support/leavingserver.h"
#include "support/runprogram.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include "common/commandline.h"
#include "common/displaytext.h"

#include <QDir>
#include <QFile>
#include <QFileSystemWatcher>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLockFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

using Run = ProgramRun;

Run tetherctl(const QStringList &arguments, int timeoutMs = 30000, const QString &configHome = {})
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    if (!configHome.isEmpty())
        environment.insert(u"XDG_CONFIG_HOME"_s, configHome);
    return runProgram(QStringLiteral(TETHERCTL), arguments, environment, timeoutMs);
}

QString demo(const QString &flags = {})
{
    return flags.isEmpty() ? QStringLiteral(TETHER_DEMO_SERVER) : QStringLiteral(TETHER_DEMO_SERVER) + u' ' + flags;
}

QString everything()
{
    return u"node "_s + serverEverythingScript() + u" stdio"_s;
}

// A Claude Desktop file with one trivial server per name, for imports.
QString importSource(const QTemporaryDir &dir, const QStringList &names)
{
    QJsonObject servers;
    for (const QString &name : names)
        servers.insert(name, QJsonObject{{u"command"_s, u"x"_s}});
    const QString path = dir.filePath(names.join(u'+') + u".json"_s);
    if (!writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson()))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

std::unique_ptr<QProcess> startImport(const QString &source, const QString &target)
{
    auto process = std::make_unique<QProcess>();
    process->start(QStringLiteral(TETHERCTL), {u"import"_s, u"claude"_s, source, u"--config"_s, target});
    return process;
}

QJsonObject withServer(QJsonObject root, const QString &name)
{
    QJsonObject servers = root.value(u"mcpServers"_s).toObject();
    servers.insert(name, QJsonObject{{u"command"_s, u"x"_s}});
    root.insert(u"mcpServers"_s, servers);
    return root;
}

QStringList serverNames(const QString &configPath)
{
    QStringList names = QJsonDocument::fromJson(readFile(configPath)).object().value(u"mcpServers").toObject().keys();
    names.sort();
    return names;
}

// What a config command says when no Tether runs the config, so it runs the servers itself.
QString noInstanceNote(const QString &configPath)
{
    return u"tetherctl: no Tether runs %1, so this command runs its servers until it ends (start one with "
           "`tetherctl daemon` or the window)\n"_s.arg(configPath);
}

bool oneLine(const QString &text)
{
    return text.endsWith(u'\n') && text.count(u'\n') == 1 && text.startsWith(u"tetherctl: "_s);
}

// The objects of watch --json, one a line, as they come: `pending` keeps a line not yet whole.
void readJsonLines(QProcess &process, QString *pending, QList<QJsonObject> *events)
{
    *pending += QString::fromUtf8(process.readAllStandardOutput());
    while (pending->contains(u'\n')) {
        const qsizetype newline = pending->indexOf(u'\n');
        events->append(QJsonDocument::fromJson(pending->left(newline).toUtf8()).object());
        pending->remove(0, newline + 1);
    }
}

// tetherctl on a pseudo-terminal (util-linux script), as a user at a terminal runs it: what it
// prints (stdout and stderr both, with the terminal's echo of what is typed) and lines typed to it.
class TerminalRun final
{
public:
    explicit TerminalRun(const QStringList &arguments, const QProcessEnvironment &environment
                                                       = QProcessEnvironment::systemEnvironment())
    {
        QProcessEnvironment scriptEnvironment = environment;
        scriptEnvironment.insert(u"SHELL"_s, u"/bin/sh"_s); // script runs the command with $SHELL -c
        m_process.setProcessEnvironment(scriptEnvironment);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(u"script"_s, {u"-qfec"_s, Tether::joinCommandLine(QStringList{QStringLiteral(TETHERCTL)} + arguments),
                                      u"/dev/null"_s});
    }
    ~TerminalRun()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }

    // Whether `text` has been printed since what was shown when keys were last typed: QTRY_VERIFY
    // waits on it (and asks once more when it holds).
    bool shows(const QString &text)
    {
        m_output += QString::fromUtf8(m_process.readAll());
        const qsizetype found = m_output.indexOf(text, m_answered);
        if (found < 0)
            return false;
        m_shown = std::max(m_shown, found + text.size());
        return true;
    }
    // Typed in answer to what was shown last.
    void type(const QByteArray &keys)
    {
        m_answered = m_shown;
        m_process.write(keys);
    }
    // Its exit code once it has ended (bounded), and everything it printed.
    int finish()
    {
        if (!m_process.waitForFinished(30000))
            return -1;
        m_output += QString::fromUtf8(m_process.readAll());
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }
    const QString &output() const { return m_output; }

private:
    QProcess m_process;
    QString m_output;
    qsizetype m_shown = 0;    // the end of the text shows() found last
    qsizetype m_answered = 0; // where the text after the last keys typed starts
};

// What server-everything's trigger-elicitation-request asks, in the order tetherctl asks it: the
// required field first, then the others by key (their descriptions, as the questions show them).
const QStringList everythingFormQuestions{
    u"Your full, legal name"_s,            u"Your date of birth"_s,
    u"Agree to the terms and conditions"_s, u"Your email address"_s,
    u"Favorite first line of a story"_s,   u"Portfolio / personal website"_s,
    u"Your favorite integer"_s,            u"Choose your favorite type of pet"_s,
    u"Favorite number"_s,                  u"Choose your favorite types of fish"_s,
    u"Choose your favorite hero"_s,        u"Choose your favorite instruments"_s,
    u"Choose your favorite friend"_s,
};

} // namespace

class TestTetherctl final : public QObject
{
    Q_OBJECT

private slots:
    // server-everything over Streamable HTTP and over HTTP+SSE, for the --url tests.
    void initTestCase()
    {
        m_streamableServer = std::make_unique<ServerEverythingHttp>(u"streamableHttp"_s, freeLoopbackPort());
        m_sseServer = std::make_unique<ServerEverythingHttp>(u"sse"_s, freeLoopbackPort());
        QVERIFY2(m_streamableServer->start(), m_streamableServer->output.constData());
        QVERIFY2(m_sseServer->start(), m_sseServer->output.constData());
    }

    // --help names every command and the options of all; a command's help has its own and the
    // exit statuses.
    void helpDocumentsEverything()
    {
        const Run run = tetherctl({u"--help"_s});
        QCOMPARE(run.exitCode, 0);
        for (const QString &word : {u"tools"_s, u"call"_s, u"--stdio"_s, u"--url"_s, u"--json"_s, u"--timeout-ms"_s,
                                    u"tetherctl --help COMMAND"_s})
            QVERIFY2(run.out.contains(word), qPrintable(word));
        const Run call = tetherctl({u"call"_s, u"--help"_s});
        QCOMPARE(call.exitCode, 0);
        for (const QString &word : {u"--stdio"_s, u"--url"_s, u"--transport"_s, u"--header"_s, u"--json"_s,
                                    u"--timeout-ms"_s, u"Exit status"_s})
            QVERIFY2(call.out.contains(word), qPrintable(word));
    }

    void listsTools()
    {
        const Run run = tetherctl({u"tools"_s, u"--stdio"_s, demo()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(QRegularExpression(u"^echo +Returns its message unchanged\\.$"_s, QRegularExpression::MultilineOption)));
        QCOMPARE(run.out.count(u'\n'), 12);
        QCOMPARE(run.err, QString());
    }

    void listsToolsAsJson()
    {
        const Run run = tetherctl({u"tools"_s, u"--json"_s, u"--stdio"_s, demo(u"--tools 3"_s)});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray tools = QJsonDocument::fromJson(run.out.toUtf8()).array();
        QCOMPARE(tools.size(), 15);
        QCOMPARE(tools.at(1).toObject().value(u"name").toString(), u"add"_s);
        QVERIFY(tools.at(1).toObject().value(u"inputSchema").isObject());
    }

    void callsATool()
    {
        const Run run = tetherctl({u"call"_s, u"--stdio"_s, demo(), u"add"_s, u"{\"a\": 2, \"b\": 3}"_s});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, u"5\n"_s);
    }

    void callPrintsJson()
    {
        const Run run = tetherctl({u"call"_s, u"echo"_s, u"{\"message\":\"hi\"}"_s, u"--json"_s, u"--stdio"_s, demo()});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(result.value(u"isError").toBool(true), false);
        QCOMPARE(result.value(u"content").toArray().at(0).toObject().value(u"text").toString(), u"hi"_s);
    }

    void toolErrorExitsWithOne()
    {
        const Run run = tetherctl({u"call"_s, u"--stdio"_s, demo(), u"fail"_s, u"{\"message\":\"no luck\"}"_s});
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.out, u"no luck\n"_s);
    }

    void usageErrorsExitWithTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("messagePart");

        QTest::newRow("no command") << QStringList{} << u"no command"_s;
        QTest::newRow("unknown command") << QStringList{u"frobnicate"_s} << u"unknown command 'frobnicate' (see"_s;
        QTest::newRow("mistyped command") << QStringList{u"stauts"_s}
                                          << u"unknown command 'stauts'; did you mean status or start? (see"_s;
        QTest::newRow("mistyped command asking for help") << QStringList{u"--help"_s, u"tols"_s}
                                                          << u"unknown command 'tols'; did you mean tools or logs?"_s;
        QTest::newRow("mistyped client of connect")
            << QStringList{u"connect"_s, u"cursr"_s}
            << u"connect knows claude, cursor, vscode, claude-code, not 'cursr'; did you mean cursor? (see"_s;
        QTest::newRow("status with --stdio") << QStringList{u"status"_s, u"--stdio"_s, demo()} << u"config file"_s;
        QTest::newRow("policy flag outside watch") << QStringList{u"tools"_s, u"--max-attempts"_s, u"3"_s} << u"'watch' and 'serve' only"_s;
        QTest::newRow("unterminated quote") << QStringList{u"tools"_s, u"--stdio"_s, u"server 'oops"_s} << u"unterminated"_s;
        QTest::newRow("bad timeout") << QStringList{u"tools"_s, u"--timeout-ms"_s, u"soon"_s, u"--stdio"_s, demo()}
                                     << u"--timeout-ms"_s;
        QTest::newRow("call without tool") << QStringList{u"call"_s, u"--stdio"_s, demo()} << u"name of the tool"_s;
        QTest::newRow("arguments not an object") << QStringList{u"call"_s, u"--stdio"_s, demo(), u"echo"_s, u"[1]"_s}
                                                 << u"must be a JSON object"_s;
        QTest::newRow("unknown option") << QStringList{u"tools"_s, u"--frob"_s} << u"frob"_s;
        // The config's own rules judge --url and --header, in the config's words.
        QTest::newRow("url not http") << QStringList{u"tools"_s, u"--url"_s, u"ftp://example.com/mcp"_s}
                                      << u"--url \"ftp://example.com/mcp\" is not an http or https URL (its scheme is \"ftp\")"_s;
        QTest::newRow("url empty") << QStringList{u"tools"_s, u"--url"_s, QString()} << u"--url \"\" is empty"_s;
        QTest::newRow("header variable unset")
            << QStringList{u"tools"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s, u"--header"_s,
                           u"Authorization: Bearer ${env:TETHER_TEST_UNSET_TOKEN}"_s}
            << u"--header Authorization uses ${env:TETHER_TEST_UNSET_TOKEN}, but TETHER_TEST_UNSET_TOKEN is not set"_s;
        QTest::newRow("header name invalid")
            << QStringList{u"tools"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s, u"--header"_s, u"A=B: c"_s}
            << u"--header \"A=B\" is not a valid header name"_s;
        QTest::newRow("header without name")
            << QStringList{u"tools"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s, u"--header"_s, u"Bearer hidden-value"_s}
            << u"--header wants 'Name: value'"_s;
        QTest::newRow("header twice")
            << QStringList{u"tools"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s, u"--header"_s, u"X-A: 1"_s, u"--header"_s, u"X-A: 2"_s}
            << u"--header X-A is given twice"_s;
        QTest::newRow("unknown transport")
            << QStringList{u"tools"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s, u"--transport"_s, u"websocket"_s}
            << u"--transport wants http"_s;
        QTest::newRow("header without url") << QStringList{u"tools"_s, u"--header"_s, u"X-A: 1"_s} << u"--url"_s;
        QTest::newRow("stdio and url") << QStringList{u"tools"_s, u"--stdio"_s, demo(), u"--url"_s, u"http://127.0.0.1:9/mcp"_s}
                                       << u"not both"_s;
        QTest::newRow("status with --url") << QStringList{u"status"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s}
                                           << u"config file"_s;
        QTest::newRow("servers with an operand") << QStringList{u"servers"_s, u"demo"_s} << u"takes no arguments"_s;
        QTest::newRow("servers with --stdio") << QStringList{u"servers"_s, u"--stdio"_s, demo()} << u"config file"_s;
        QTest::newRow("read without uri") << QStringList{u"read"_s, u"--stdio"_s, demo()} << u"'read' takes URI"_s;
        QTest::newRow("prompt with two names") << QStringList{u"prompt"_s, u"--stdio"_s, demo(), u"a"_s, u"b"_s}
                                               << u"'prompt' takes NAME besides the server"_s;
        QTest::newRow("read of the config with three words") << QStringList{u"read"_s, u"a"_s, u"b"_s, u"c"_s}
                                                             << u"'read' takes [SERVER] URI"_s;
        QTest::newRow("resources with an operand") << QStringList{u"resources"_s, u"--stdio"_s, demo(), u"x"_s}
                                                   << u"'resources' with --stdio takes no more arguments: its server is "
                                                      "the one --stdio gives; got 'x'"_s;
        QTest::newRow("tools of a named server with --url")
            << QStringList{u"tools"_s, u"demo"_s, u"--url"_s, u"http://127.0.0.1:9/mcp"_s}
            << u"'tools' with --url takes no more arguments: its server is the one --url gives; got 'demo'"_s;
        QTest::newRow("empty arguments") << QStringList{u"call"_s, u"--stdio"_s, demo(), u"echo"_s, QString()}
                                         << u"the arguments of 'echo' are empty; pass an object such as '{}', or leave them out"_s;
        QTest::newRow("arg outside prompt") << QStringList{u"call"_s, u"--arg"_s, u"a=b"_s, u"--stdio"_s, demo(), u"echo"_s}
                                            << u"--arg applies to 'prompt' only"_s;
        QTest::newRow("arg without value") << QStringList{u"prompt"_s, u"--stdio"_s, demo(), u"p"_s, u"--arg"_s, u"city"_s}
                                           << u"--arg wants NAME=VALUE, such as --arg city=Paris, not 'city'"_s;
    }

    void usageErrorsExitWithTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, messagePart);
        const Run run = tetherctl(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err), qPrintable(run.err));
        QVERIFY2(run.err.contains(messagePart), qPrintable(run.err));
        QCOMPARE(run.out, QString());
    }

    // JSON that cannot be read is shown with a caret under where it goes wrong, after the line
    // that names the tool and says what is wrong; long text is cut around that place. Single
    // quotes, the usual slip, are named as such.
    void jsonArgumentErrorsPointAtTheFault_data()
    {
        QTest::addColumn<bool>("configForm"); // call SERVER TOOL JSON, not call --stdio CMD TOOL JSON
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("shown");  // the text as the line after the message shows it
        QTest::addColumn<QString>("pointed"); // the character the caret is under; empty: after the end
        QTest::addColumn<QString>("fault");

        QTest::newRow("a bare word") << false << u"{\"message\": hi}"_s << u"{\"message\": hi}"_s << u"h"_s << u"illegal number"_s;
        QTest::newRow("a bare word, config") << true << u"{\"message\": hi}"_s << u"{\"message\": hi}"_s << u"h"_s
                                             << u"illegal number"_s;
        QTest::newRow("unterminated") << false << u"{\"message\": \"hi\""_s << u"{\"message\": \"hi\""_s << QString()
                                      << u"unterminated string"_s;
        const QString longText = u"{\"message\": \""_s + QString(u'x').repeated(200) + u"\" 3}"_s;
        QTest::newRow("long, cut before") << false << longText << u"…"_s + QString(u'x').repeated(68) + u"\" 3}"_s
                                          << u"}"_s << u"unterminated object"_s;
        QTest::newRow("single quotes") << true << u"{'message': 'hi'}"_s << u"{'message': 'hi'}"_s << u"'"_s
                                       << u"a single quote, where JSON takes double quotes only at character 2"_s;
    }

    void jsonArgumentErrorsPointAtTheFault()
    {
        QFETCH(bool, configForm);
        QFETCH(QString, json);
        QFETCH(QString, shown);
        QFETCH(QString, pointed);
        QFETCH(QString, fault);
        // The arguments are read before the config is: none is needed.
        const Run run = configForm ? tetherctl({u"call"_s, u"--config"_s, u"/nonexistent/servers.json"_s, u"demo"_s, u"echo"_s, json})
                                   : tetherctl({u"call"_s, u"--stdio"_s, demo(), u"echo"_s, json});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.out, QString());
        const QStringList lines = run.err.split(u'\n');
        QCOMPARE(lines.size(), 4); // three, and the end of the last
        QVERIFY2(lines.at(0).startsWith(u"tetherctl: the arguments of 'echo' are not valid JSON: "_s), qPrintable(run.err));
        QVERIFY2(lines.at(0).contains(fault), qPrintable(run.err));
        QVERIFY2(lines.at(0).contains(u"(marked below)"_s), qPrintable(run.err));
        QCOMPARE(lines.at(1), u"  "_s + shown);
        const QString &caret = lines.at(2);
        QVERIFY2(caret.endsWith(u'^') && caret.count(u'^') == 1 && caret.trimmed() == u"^"_s, qPrintable(caret));
        const qsizetype column = caret.size() - 1;
        if (pointed.isEmpty())
            QCOMPARE(column, lines.at(1).size());
        else
            QCOMPARE(lines.at(1).mid(column, 1), pointed);
    }

    // A server name a typo away from one of the config's is named, wherever a server is named.
    void mistypedServerNamesAreNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("watch") << QStringList{u"watch"_s, u"deom"_s};
        QTest::newRow("tools") << QStringList{u"tools"_s, u"deom"_s};
        QTest::newRow("call") << QStringList{u"call"_s, u"deom"_s, u"echo"_s};
        QTest::newRow("resources") << QStringList{u"resources"_s, u"deom"_s};
        QTest::newRow("serve") << QStringList{u"serve"_s, u"deom"_s};
        // Those that ask a running Tether, with none running: the name first.
        QTest::newRow("start") << QStringList{u"start"_s, u"deom"_s};
        QTest::newRow("stop") << QStringList{u"stop"_s, u"other"_s, u"deom"_s};
        QTest::newRow("logs") << QStringList{u"logs"_s, u"deom"_s};
    }

    void mistypedServerNamesAreNamed()
    {
        QFETCH(QStringList, arguments);
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
            {u"other"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));
        const Run run = tetherctl(arguments + QStringList{u"--config"_s, path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(u"the config %1 has no server named 'deom'; did you mean demo?\n"_s.arg(path)),
                 qPrintable(run.err));
    }

    // A tool a named server does not offer: its close names, not the server's own words.
    void mistypedToolOfAServerIsNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));
        const Run run = tetherctl({u"call"_s, u"--config"_s, path, u"demo"_s, u"ecko"_s});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.out, QString());
        QVERIFY2(run.err.endsWith(u"tetherctl: server 'demo' has no tool named 'ecko'; did you mean echo?\n"_s),
                 qPrintable(run.err));
        const Run far = tetherctl({u"call"_s, u"--config"_s, path, u"demo"_s, u"frobnicate"_s});
        QCOMPARE(far.exitCode, 2);
        QVERIFY2(far.err.endsWith(u"server 'demo' has no tool named 'frobnicate' (tetherctl tools demo lists them)\n"_s),
                 qPrintable(far.err));
    }

    // --verbose shows a call's progress, whether tetherctl runs one server or the config's.
    void verboseShowsProgress()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}}}}}).toJson()));
        const QString sleep = u"{\"ms\": 350}"_s;
        for (const QStringList &form : {QStringList{u"--stdio"_s, demo()}, QStringList{u"--config"_s, path, u"demo"_s}}) {
            const Run run = tetherctl(QStringList{u"call"_s} + form + QStringList{u"sleep"_s, sleep, u"--verbose"_s});
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.err.contains(QRegularExpression(u"progress: \\d+/350 slept \\d+ of 350 ms"_s)), qPrintable(run.err));
            const Run quiet = tetherctl(QStringList{u"call"_s} + form + QStringList{u"sleep"_s, sleep});
            QVERIFY2(!quiet.err.contains(u"progress:"_s), qPrintable(quiet.err));
        }
    }

    // server-everything refuses an unknown tool with a result that is a tool error, not an error:
    // named the same, configured or with --stdio.
    void mistypedToolRefusedAsAToolErrorIsNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"everything"_s, QJsonObject{{u"command"_s, u"node"_s},
                                          {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}}}},
        }}}).toJson()));
        const Run configured = tetherctl({u"call"_s, u"--config"_s, path, u"everything"_s, u"ecko"_s, u"{}"_s});
        QCOMPARE(configured.exitCode, 2);
        QVERIFY2(configured.err.endsWith(u"tetherctl: server 'everything' has no tool named 'ecko'; did you mean echo?\n"_s),
                 qPrintable(configured.err));
        const Run direct = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"ecko"_s, u"{}"_s});
        QCOMPARE(direct.exitCode, 2);
        QVERIFY2(direct.err.contains(u"has no tool named 'ecko'; did you mean echo?"_s), qPrintable(direct.err));
        // A tool it has, reporting an error of its own, is printed as its result.
        const Run toolError = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"echo"_s, u"{}"_s});
        QVERIFY2(!toolError.err.contains(u"has no tool named"_s), qPrintable(toolError.err));
    }

    void connectionErrorsExitWithTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("messageParts");

        QTest::newRow("server fails at startup")
            << QStringList{u"tools"_s, u"--stdio"_s, demo(u"--fail-at-startup"_s)}
            << QStringList{u"tether-demo-server"_s, u"code 3"_s, u"refusing to start"_s};
        QTest::newRow("program not found")
            << QStringList{u"tools"_s, u"--stdio"_s, u"/nonexistent/mcp-server --flag"_s}
            << QStringList{u"could not start"_s, u"/nonexistent/mcp-server"_s};
        QTest::newRow("handshake timeout")
            << QStringList{u"tools"_s, u"--timeout-ms"_s, u"300"_s, u"--stdio"_s, demo(u"--slow-initialize-ms 20000"_s)}
            << QStringList{u"timed out after 300 ms"_s};
        QTest::newRow("tool hangs")
            << QStringList{u"call"_s, u"--timeout-ms"_s, u"300"_s, u"--stdio"_s, demo(), u"hang"_s}
            << QStringList{u"'hang'"_s, u"timed out"_s};
        QTest::newRow("server crashes during the call")
            << QStringList{u"call"_s, u"--stdio"_s, demo(), u"crash"_s, u"{\"code\": 5}"_s}
            << QStringList{u"code 5"_s, u"crash tool called"_s};
        QTest::newRow("unknown tool")
            << QStringList{u"call"_s, u"--stdio"_s, demo(), u"no-such-tool"_s}
            << QStringList{u"no-such-tool"_s};
        QTest::newRow("protocol version")
            << QStringList{u"tools"_s, u"--stdio"_s, demo(u"--protocol-version 1999-01-01"_s)}
            << QStringList{u"1999-01-01"_s, u"2025-11-25"_s};
        // The era pinned on the command line is named as such, with what to do on it.
        QTest::newRow("era pinned by --protocol")
            << QStringList{u"tools"_s, u"--protocol"_s, u"2026-07-28"_s, u"--stdio"_s, demo()}
            << QStringList{u"does not speak protocol 2026-07-28, to which --protocol pins it"_s,
                           u"leave out --protocol, or give --protocol 2025-11-25"_s};
        const QString nothingListens = u"http://127.0.0.1:%1/mcp"_s.arg(freeLoopbackPort());
        QTest::newRow("connection refused") << QStringList{u"tools"_s, u"--url"_s, nothingListens}
                                            << QStringList{nothingListens, u"connection refused"_s};
    }

    void connectionErrorsExitWithTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, messageParts);
        const Run run = tetherctl(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err), qPrintable(run.err));
        for (const QString &part : messageParts)
            QVERIFY2(run.err.contains(part), qPrintable(run.err));
    }

    void serverEverythingTools()
    {
        const Run run = tetherctl({u"tools"_s, u"--stdio"_s, everything()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QRegularExpression(u"^echo +Echoes back"_s, QRegularExpression::MultilineOption)),
                 qPrintable(run.out));
        QVERIFY(run.out.contains(u"get-sum"_s));
        // tetherctl declares the client features: the tools that need them are offered too.
        for (const QString &tool : {u"trigger-elicitation-request"_s, u"trigger-url-elicitation"_s,
                                    u"trigger-sampling-request"_s, u"get-roots-list"_s})
            QVERIFY2(run.out.contains(QRegularExpression(u"^%1 "_s.arg(tool), QRegularExpression::MultilineOption)),
                     qPrintable(tool));
    }

    void serverEverythingCall()
    {
        const Run run = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"echo"_s, u"{\"message\": \"over stdio\"}"_s});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, u"Echo: over stdio\n"_s);
    }

    void serverEverythingResources()
    {
        const Run run = tetherctl({u"resources"_s, u"--stdio"_s, everything()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith(u"URI "_s), qPrintable(run.out));
        QVERIFY2(run.out.contains(QRegularExpression(u"^demo://resource/static/document/features.md +features.md +text/markdown "
                                                     "+Static document file"_s, QRegularExpression::MultilineOption)),
                 qPrintable(run.out));
        QVERIFY2(run.out.contains(QRegularExpression(u"^demo://resource/dynamic/blob/\\{resourceId\\} +Dynamic Blob Resource "
                                                     "+application/octet-stream"_s, QRegularExpression::MultilineOption)),
                 qPrintable(run.out));

        const Run json = tetherctl({u"resources"_s, u"--json"_s, u"--stdio"_s, everything()});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject listed = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(listed.value(u"resourceTemplates").toArray().size(), 2);
        QCOMPARE(listed.value(u"resourceTemplates").toArray().first().toObject().value(u"uriTemplate").toString(),
                 u"demo://resource/dynamic/text/{resourceId}"_s);
        QVERIFY(!listed.value(u"resources").toArray().isEmpty());
        QVERIFY(!listed.value(u"resources").toArray().first().toObject().contains(u"server"));
    }

    void serverEverythingReadsResources()
    {
        const Run text = tetherctl({u"read"_s, u"--stdio"_s, everything(), u"demo://resource/dynamic/text/7"_s});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.startsWith(u"Resource 7: This is a plaintext resource created at "_s), qPrintable(text.out));
        QCOMPARE(text.out.count(u'\n'), 1);
        // Bytes of a text type are printed as text; --json gives them as base64.
        const Run blob = tetherctl({u"read"_s, u"--stdio"_s, everything(), u"demo://resource/dynamic/blob/8"_s});
        QCOMPARE(blob.exitCode, 0);
        QVERIFY2(blob.out.startsWith(u"Resource 8: This is a base64 blob created at "_s), qPrintable(blob.out));
        const Run json = tetherctl({u"read"_s, u"--json"_s, u"--stdio"_s, everything(), u"demo://resource/dynamic/blob/8"_s});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject part = QJsonDocument::fromJson(json.out.toUtf8()).object().value(u"contents").toArray().first().toObject();
        QCOMPARE(part.value(u"uri").toString(), u"demo://resource/dynamic/blob/8"_s);
        QVERIFY(QByteArray::fromBase64(part.value(u"blob").toString().toLatin1()).startsWith("Resource 8: This is a base64 blob"));

        const Run unknown = tetherctl({u"read"_s, u"--stdio"_s, everything(), u"demo://nothing"_s});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(oneLine(unknown.err) && unknown.err.contains(u"reading 'demo://nothing' from server 'node' failed: "_s),
                 qPrintable(unknown.err));
    }

    void serverEverythingPrompts()
    {
        const Run list = tetherctl({u"prompts"_s, u"--stdio"_s, everything()});
        QCOMPARE(list.exitCode, 0);
        QVERIFY2(list.out.contains(QRegularExpression(u"^args-prompt +city\\*, state +A prompt with two arguments"_s,
                                                      QRegularExpression::MultilineOption)),
                 qPrintable(list.out));
        QVERIFY2(list.out.contains(QRegularExpression(u"^simple-prompt +- +"_s, QRegularExpression::MultilineOption)),
                 qPrintable(list.out));

        const Run prompt = tetherctl({u"prompt"_s, u"--stdio"_s, everything(), u"args-prompt"_s, u"--arg"_s,
                                      u"city=Paris"_s, u"--arg"_s, u"state=Île-de-France"_s});
        QCOMPARE(prompt.exitCode, 0);
        QCOMPARE(prompt.out, u"user: What's weather in Paris, Île-de-France?\n"_s);

        const Run missing = tetherctl({u"prompt"_s, u"--stdio"_s, everything(), u"args-prompt"_s});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(oneLine(missing.err) && missing.err.contains(u"getting the prompt 'args-prompt' from server 'node' failed"_s),
                 qPrintable(missing.err));
    }

    // Without a terminal nobody can be asked: the elicitation is refused at once and the tool
    // (server-everything turns the refusal into an error result) says why.
    void elicitationWithoutATerminalIsRefused()
    {
        const Run run = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"trigger-elicitation-request"_s, u"{}"_s});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(u"tetherctl call cannot ask for input without a terminal (stdin and stderr are not "
                                  "TTYs); run it in a terminal, or call the tool from an AI client connected to "
                                  "Tether's gateway"_s),
                 qPrintable(run.out));
        QVERIFY2(run.err.contains(u"tetherctl: server 'node' asked for input, which needs a terminal"_s), qPrintable(run.err));
    }

    void samplingIsRefused()
    {
        const Run run = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"trigger-sampling-request"_s,
                                   u"{\"prompt\": \"hello\"}"_s});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(u"tetherctl has no model to sample from; call the tool from an AI client connected "
                                  "to Tether's gateway"_s),
                 qPrintable(run.out));
        QVERIFY2(run.err.contains(u"server 'node' asked for a model's answer (sampling)"_s), qPrintable(run.err));
    }

    // roots/list answers the config's roots of the server; a server given with --stdio has none.
    void rootsAreTheConfigRoots()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"everything"_s, QJsonObject{{u"command"_s, u"node"_s},
                                          {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}},
                                          {u"roots"_s, QJsonArray{u"/tmp/x"_s}}}},
        }}}).toJson()));
        const Run configured = tetherctl({u"call"_s, u"--config"_s, path, u"everything"_s, u"get-roots-list"_s});
        QCOMPARE(configured.exitCode, 0);
        QVERIFY2(configured.out.contains(u"Current MCP Roots (1 total)"_s) && configured.out.contains(u"URI: file:///tmp/x"_s),
                 qPrintable(configured.out));

        const Run adHoc = tetherctl({u"call"_s, u"--stdio"_s, everything(), u"get-roots-list"_s});
        QCOMPARE(adHoc.exitCode, 0);
        QVERIFY2(adHoc.out.contains(u"no roots are currently configured"_s), qPrintable(adHoc.out));
    }

    // "clientFeatures": false declares neither sampling nor elicitation nor roots: server-everything
    // then offers none of the tools that need them.
    void clientFeaturesCanBeSwitchedOff()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"everything"_s, QJsonObject{{u"command"_s, u"node"_s},
                                          {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}},
                                          {u"clientFeatures"_s, false}}},
        }}}).toJson()));
        const Run run = tetherctl({u"tools"_s, u"--config"_s, path, u"everything"_s});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(u"get-sum"_s), qPrintable(run.out));
        for (const QString &gated : {u"trigger-sampling-request"_s, u"trigger-elicitation-request"_s, u"get-roots-list"_s})
            QVERIFY2(!run.out.contains(gated), qPrintable(run.out));
    }

    // On a terminal each field is asked for: a wrong answer is asked again, an empty one takes
    // the default, and the answers go to the server once accepted.
    void elicitationOnATerminal()
    {
        TerminalRun terminal({u"call"_s, u"--stdio"_s, everything(), u"trigger-elicitation-request"_s, u"{}"_s});
        // What tetherctl shows, and what is typed then.
        const QList<std::pair<QString, QByteArray>> steps{
            {u"server 'node' asks: Please provide inputs for the following fields:\r\n"_s
             "(Enter takes the default in [brackets]; Ctrl-D cancels)\r\n"
             "String (text, required): Your full, legal name\r\n> "_s, ""},
            {u"  an answer is required\r\n> "_s, "Ada Lovelace"},
            {u"String with date format (date, YYYY-MM-DD): Your date of birth\r\n> "_s, "1815-12-10"},
            {u"Boolean (y/n): Agree to the terms and conditions\r\n> "_s, "y"},
            {u"Your email address"_s, "ada@"},
            {u"  \"ada@\" is not an email address such as name@example.com\r\n> "_s, "ada@example.com"},
            {u"Favorite first line of a story\r\n[It was a dark and stormy night.]> "_s, ""},
            {u"Portfolio / personal website"_s, ""},
            {u"(whole number from 1 to 100): Your favorite integer"_s, "500"},
            {u"  500 is more than the maximum, 100\r\n[42]> "_s, ""},
            {u"Choose your favorite type of pet\r\n  1. Cats\r\n  2. Dogs\r\n"_s, "2"},
            {u"Favorite number"_s, "7.5"},
            {u"Choose your favorite types of fish"_s, "1, 3"},
            {u"Choose your favorite hero"_s, "wonder woman"},
            {u"Choose your favorite instruments"_s, ""},
            {u"Choose your favorite friend"_s, ""},
            {u"  Untitled Single Select Enum: Monica\r\nAccept (a) and send them, decline (d) or cancel (c)? [a]> "_s, "a"},
        };
        for (const auto &[shown, typed] : steps) {
            QTRY_VERIFY2_WITH_TIMEOUT(terminal.shows(shown), qPrintable(shown + u"\nnot in:\n"_s + terminal.output()),
                                      15000);
            terminal.type(typed + '\n');
        }
        QCOMPARE(terminal.finish(), 0);
        const QString &output = terminal.output();
        for (const QString &line : {u"- Name: Ada Lovelace"_s, u"- Agreed to terms: true"_s, u"- Email: ada@example.com"_s,
                                    u"- Birthdate: 1815-12-10"_s, u"- Favorite Integer: 42"_s, u"- Favorite Number: 7.5"_s,
                                    u"\"firstLine\": \"It was a dark and stormy night.\""_s,
                                    u"\"legacyTitledEnum\": \"pet-2\""_s, u"\"titledSingleSelectEnum\": \"hero-3\""_s,
                                    u"\"untitledSingleSelectEnum\": \"Monica\""_s})
            QVERIFY2(output.contains(line), qPrintable(line + u" in:\n"_s + output));
        QVERIFY2(output.contains(QRegularExpression(u"\"titledMultipleSelectEnum\": \\[\\s*\"fish-1\",\\s*\"fish-3\"\\s*\\]"_s)),
                 qPrintable(output));
        QVERIFY2(output.contains(QRegularExpression(u"\"untitledMultipleSelectEnum\": \\[\\s*\"Guitar\"\\s*\\]"_s)),
                 qPrintable(output));
        QVERIFY2(!output.contains(u"homepage"_s), qPrintable(output)); // left empty, no default: left out
    }

    // Declined at the end, cancelled with Ctrl-D, or the command ended with Ctrl-C while it asks.
    void elicitationOnATerminalEnds_data()
    {
        QTest::addColumn<QByteArray>("keys");
        QTest::addColumn<bool>("throughTheForm");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("shown");
        QTest::newRow("decline") << QByteArray("d\n") << true << 0 << u"User declined to provide the requested information"_s;
        QTest::newRow("Ctrl-D") << QByteArray("\x04") << false << 0 << u"User cancelled the elicitation dialog"_s;
        QTest::newRow("Ctrl-C") << QByteArray("\x03") << false << 130
                                << u"tetherctl: interrupted by SIGINT: cancelling what is in flight"_s;
    }

    void elicitationOnATerminalEnds()
    {
        QFETCH(QByteArray, keys);
        QFETCH(bool, throughTheForm);
        QFETCH(int, exitCode);
        QFETCH(QString, shown);
        TerminalRun terminal({u"call"_s, u"--stdio"_s, everything(), u"trigger-elicitation-request"_s, u"{}"_s});
        QTRY_VERIFY2_WITH_TIMEOUT(terminal.shows(everythingFormQuestions.first()), qPrintable(terminal.output()), 15000);
        if (throughTheForm) {
            terminal.type("Ada\n");
            for (const QString &question : everythingFormQuestions.mid(1)) {
                QTRY_VERIFY2_WITH_TIMEOUT(terminal.shows(question), qPrintable(terminal.output()), 15000);
                terminal.type("\n");
            }
            QTRY_VERIFY2_WITH_TIMEOUT(terminal.shows(u"decline (d) or cancel (c)? [a]> "_s), qPrintable(terminal.output()),
                                      15000);
        }
        terminal.type(keys);
        QCOMPARE(terminal.finish(), exitCode);
        QVERIFY2(terminal.output().contains(shown), qPrintable(terminal.output()));
    }

    // A URL to open: shown whole, opened by the browser command once the user says yes.
    void urlElicitationOnATerminal()
    {
        QTemporaryDir dir;
        const QString browser = dir.filePath(u"browser"_s);
        const QString opened = dir.filePath(u"opened"_s);
        QVERIFY(writeFile(browser, "#!/bin/sh\necho \"$1\" > \"" + opened.toUtf8() + "\"\n"));
        QVERIFY(QFile::setPermissions(browser, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"TETHER_BROWSER"_s, browser);
        const QString url = u"https://example.com/confirm?step=2&user=ada"_s;
        TerminalRun terminal({u"call"_s, u"--stdio"_s, everything(), u"trigger-url-elicitation"_s,
                              u"{\"url\": \"%1\", \"message\": \"Confirm it\"}"_s.arg(url)},
                             environment);
        QTRY_VERIFY2_WITH_TIMEOUT(terminal.shows(u"server 'node' asks you to open a URL: Confirm it\r\n  %1\r\n"
                                                 "  (a page of example.com)\r\nOpen it in a browser? (y/N)> "_s.arg(url)),
                                  qPrintable(terminal.output()), 15000);
        terminal.type("y\n");
        QCOMPARE(terminal.finish(), 0);
        QVERIFY2(terminal.output().contains(u"User completed the URL elicitation flow"_s), qPrintable(terminal.output()));
        QTRY_COMPARE_WITH_TIMEOUT(readFile(opened), url.toUtf8() + '\n', 10000);
    }

    // A server that offers none says so, and is not asked.
    void serverWithoutResourcesOrPrompts()
    {
        const Run resources = tetherctl({u"resources"_s, u"--stdio"_s, demo()});
        QCOMPARE(resources.exitCode, 0);
        QCOMPARE(resources.out, u"(server 'tether-demo-server' offers no resources)\n"_s);
        const Run read = tetherctl({u"read"_s, u"--stdio"_s, demo(), u"a:b"_s});
        QCOMPARE(read.exitCode, 2);
        QVERIFY2(read.err.contains(u"offers no resources: its initialize result does not advertise"_s), qPrintable(read.err));
    }

    // On a config: every server's resources and prompts, and a read or a prompt routed to the
    // server that offers it.
    void resourcesAndPromptsOfAConfig()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"everything"_s, QJsonObject{{u"command"_s, u"node"_s},
                                          {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}}}},
            {u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));

        const Run resources = tetherctl({u"resources"_s, u"--config"_s, path});
        QCOMPARE(resources.exitCode, 0);
        QVERIFY2(resources.out.startsWith(u"SERVER "_s), qPrintable(resources.out));
        QVERIFY2(resources.out.contains(QRegularExpression(u"^everything +demo://resource/dynamic/text/\\{resourceId\\} "_s,
                                                           QRegularExpression::MultilineOption)),
                 qPrintable(resources.out));
        const Run json = tetherctl({u"prompts"_s, u"--json"_s, u"--config"_s, path});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray prompts = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(prompts.size(), 4);
        QCOMPARE(prompts.first().toObject().value(u"server").toString(), u"everything"_s);

        const Run read = tetherctl({u"read"_s, u"--config"_s, path, u"demo://resource/static/document/features.md"_s});
        QCOMPARE(read.exitCode, 0);
        QVERIFY2(read.out.contains(u"## Prompts"_s), qPrintable(read.out));
        const Run prompt = tetherctl({u"prompt"_s, u"--config"_s, path, u"args-prompt"_s, u"--arg"_s, u"city=Oslo"_s});
        QCOMPARE(prompt.exitCode, 0);
        QCOMPARE(prompt.out, u"user: What's weather in Oslo?\n"_s);
        const Run named = tetherctl({u"prompt"_s, u"--config"_s, path, u"demo"_s, u"args-prompt"_s});
        QCOMPARE(named.exitCode, 2);
        QVERIFY2(named.err.contains(u"server 'demo' offers no prompts"_s), qPrintable(named.err));
        const Run nowhere = tetherctl({u"prompt"_s, u"--config"_s, path, u"no-such-prompt"_s});
        QCOMPARE(nowhere.exitCode, 2);
        QVERIFY2(nowhere.err.contains(u"cannot get the prompt 'no-such-prompt': no connected server offers the prompt"_s),
                 qPrintable(nowhere.err));
    }

    void remoteServerTools_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("stderrPart");

        QTest::newRow("streamable http") << u"streamableHttp"_s << QStringList{} << QString();
        QTest::newRow("sse after the fallback") << u"sse"_s << QStringList{u"--verbose"_s} << u"HTTP+SSE"_s;
        QTest::newRow("sse only") << u"sse"_s << QStringList{u"--transport"_s, u"sse"_s} << QString();
    }

    void remoteServerTools()
    {
        QFETCH(QString, mode);
        QFETCH(QStringList, flags);
        QFETCH(QString, stderrPart);
        const Run run = tetherctl(QStringList{u"tools"_s, u"--url"_s, server(mode).url().toString()} + flags);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QRegularExpression(u"^echo +Echoes back"_s, QRegularExpression::MultilineOption)),
                 qPrintable(run.out));
        QVERIFY(run.out.contains(u"get-sum"_s));
        if (stderrPart.isEmpty())
            QCOMPARE(run.err, QString());
        else
            QVERIFY2(run.err.contains(stderrPart), qPrintable(run.err));
    }

    void remoteServerCall()
    {
        const Run run = tetherctl({u"call"_s, u"--url"_s, server(u"streamableHttp"_s).url().toString(), u"echo"_s,
                                   u"{\"message\": \"over http\"}"_s});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, u"Echo: over http\n"_s);
    }

    void remoteServerCallPrintsJson()
    {
        const Run run = tetherctl({u"call"_s, u"--json"_s, u"--url"_s, server(u"sse"_s).url().toString(), u"--transport"_s,
                                   u"sse"_s, u"echo"_s, u"{\"message\": \"over sse\"}"_s});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(result.value(u"content").toArray().at(0).toObject().value(u"text").toString(), u"Echo: over sse"_s);
    }

    void streamableOnlyDoesNotFallBack()
    {
        const Run run = tetherctl({u"tools"_s, u"--url"_s, server(u"sse"_s).url().toString(), u"--transport"_s, u"http"_s});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err) && run.err.contains(u"answered 'initialize' with HTTP 404"_s), qPrintable(run.err));
    }

    // The configured headers go with the request; their values appear nowhere, even with --verbose.
    void headersAreSentAndNeverShown()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) {
            return FixtureReply{401, {{"WWW-Authenticate", "Bearer realm=\"mcp\""}}, {}, FixtureReply::Delivery::Whole};
        });
        const QString secret = u"s3cret-token-value"_s;
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"TETHER_TEST_TOKEN"_s, secret);
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(TETHERCTL), {u"tools"_s, u"--verbose"_s, u"--url"_s, fixture.url().toString(), u"--header"_s,
                                                  u"Authorization: Bearer ${env:TETHER_TEST_TOKEN}"_s, u"--header"_s,
                                                  u"X-Team: blue-team-secret"_s});
        // The fixture answers on this event loop: wait without blocking it.
        QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 10000);
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY(!fixture.requests.isEmpty());
        QCOMPARE(fixture.requests.first().header("Authorization"), "Bearer " + secret.toUtf8());
        QCOMPARE(fixture.requests.first().header("X-Team"), QByteArray("blue-team-secret"));
        QVERIFY2(err.contains(u"the server needs credentials"_s), qPrintable(err));
        for (const QString &value : {secret, u"blue-team-secret"_s})
            QVERIFY2(!err.contains(value) && !out.contains(value), qPrintable(err));
    }

    // A server that repeats its token (on stderr, in its error messages) has it scrubbed from
    // everything tetherctl prints, --verbose included: the config's env values are secrets.
    void serverSecretsNeverShow()
    {
        const QString secret = u"SECRET-TOKEN-123"_s;
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const auto leaking = [&](const QStringList &flags) {
            return QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                               {u"args"_s, QJsonArray::fromStringList(QStringList{u"--leak-env"_s, u"TOKEN"_s} + flags)},
                               {u"env"_s, QJsonObject{{u"TOKEN"_s, secret}}}};
        };
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"leaky"_s, leaking({})},
            {u"dying"_s, leaking({u"--exit-during-initialize"_s})},
        }}}).toJson()));

        const Run status = tetherctl({u"status"_s, u"--verbose"_s, u"--config"_s, path});
        const Run check = tetherctl({u"check"_s, u"--verbose"_s, u"--config"_s, path});
        const Run call = tetherctl({u"call"_s, u"--verbose"_s, u"--config"_s, path, u"leaky"_s, u"no_such_tool"_s});
        for (const Run &run : {status, check, call})
            QVERIFY2(!run.out.contains(secret) && !run.err.contains(secret), qPrintable(run.out + run.err));
        // It was there, and only it is gone: "(TOKEN=…)".
        QVERIFY2(status.out.contains(u"exiting during initialize (TOKEN=…)"_s), qPrintable(status.out));
        QVERIFY2(check.err.contains(u"server 'dying' is not up"_s) && check.err.contains(u"(TOKEN=…)"_s), qPrintable(check.err));
        // A tool the server does not offer is said in tetherctl's words, not in the server's.
        QCOMPARE(call.exitCode, 2);
        QVERIFY2(call.err.contains(u"server 'leaky' has no tool named 'no_such_tool'"_s), qPrintable(call.err));
    }

    // A server that quotes the request it refuses, credentials and all, in its error body.
    void reflectedHeadersNeverShow()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &request) {
            return FixtureReply{400, {{"Content-Type", "text/plain"}},
                                "bad request: X-Api-Key: " + request.header("X-Api-Key"), FixtureReply::Delivery::Whole};
        });
        QProcess process;
        process.start(QStringLiteral(TETHERCTL), {u"tools"_s, u"--verbose"_s, u"--url"_s, fixture.url().toString(),
                                                  u"--header"_s, u"X-Api-Key: SECRET-TOKEN-123"_s});
        QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 10000);
        QCOMPARE(process.exitCode(), 2);
        const QString output = QString::fromUtf8(process.readAllStandardOutput()) + QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(fixture.requests.value(0).header("X-Api-Key"), QByteArray("SECRET-TOKEN-123"));
        QVERIFY2(output.contains(u"X-Api-Key: …'"_s), qPrintable(output));
        QVERIFY2(!output.contains(u"SECRET-TOKEN-123"_s), qPrintable(output));
    }

    // A line break in a header value would send what follows as a header of its own.
    void headerWithALineBreakIsRefused()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return FixtureReply{500, {}, {}, FixtureReply::Delivery::Whole}; });
        QProcess process;
        process.start(QStringLiteral(TETHERCTL), {u"tools"_s, u"--url"_s, fixture.url().toString(), u"--header"_s,
                                                  u"X-Bad: v\r\nInjected: 1"_s});
        QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 10000);
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(oneLine(err), qPrintable(err));
        QVERIFY2(err.contains(u"--header X-Bad holds a line break"_s), qPrintable(err));
        QVERIFY2(!err.contains(u"Injected"_s), qPrintable(err));
        QVERIFY(fixture.requests.isEmpty());
    }

    // Tool names, descriptions, results and stderr lines cannot retitle or clear the terminal.
    void escapeSequencesFromAServerAreShownVisibly()
    {
        const Run tools = tetherctl({u"tools"_s, u"--verbose"_s, u"--stdio"_s, demo(u"--escape-sequences"_s)});
        QCOMPARE(tools.exitCode, 0);
        QVERIFY2(tools.out.contains(u" \\x1b[2J\\x1b[HReturns its message unchanged.\n"_s), qPrintable(tools.out));
        QVERIFY2(tools.err.contains(u"demo: \\x1b]0;retitled by the server\\x07\\x1b[2Jscreen cleared"_s),
                 qPrintable(tools.err));
        const Run call = tetherctl({u"call"_s, u"--stdio"_s, demo(), u"echo"_s, u"{\"message\": \"\\u001b[2Jline 1\\nline 2\"}"_s});
        QCOMPARE(call.exitCode, 0);
        QCOMPARE(call.out, u"\\x1b[2Jline 1\nline 2\n"_s);
        const Run failed = tetherctl({u"call"_s, u"--stdio"_s, demo(), u"\x1b]0;retitled\x07"_s});
        QCOMPARE(failed.exitCode, 2);
        QVERIFY2(oneLine(failed.err) && failed.err.contains(u"has no tool named '\\x1b]0;retitled\\x07'"_s), qPrintable(failed.err));
        // JSON escapes them itself: the text stays exact, and no raw ESC is printed.
        const Run json = tetherctl({u"tools"_s, u"--json"_s, u"--stdio"_s, demo(u"--escape-sequences"_s)});
        QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).array().at(0).toObject().value(u"description").toString(),
                 u"\x1b[2J\x1b[HReturns its message unchanged."_s);
        for (const Run &run : {tools, call, failed, json})
            QVERIFY2(!run.out.contains(u'\x1b') && !run.err.contains(u'\x1b'), qPrintable(run.out + run.err));
    }

    void watchOverUrlStopsOnSigterm()
    {
        const qsizetype serverLogBefore = m_streamableServer->output.size();
        QProcess process;
        process.start(QStringLiteral(TETHERCTL),
                      {u"watch"_s, u"--json"_s, u"--url"_s, server(u"streamableHttp"_s).url().toString()});
        QVERIFY(process.waitForStarted());
        QString out;
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(process.readAllStandardOutput())).contains(u"\"Connected\""_s),
                                 10000);
        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        out += QString::fromUtf8(process.readAllStandardOutput());
        QStringList states;
        for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts)) {
            const QJsonObject event = QJsonDocument::fromJson(line.toUtf8()).object();
            states.append(event.value(u"state").toString());
            QCOMPARE(event.value(u"server").toString(), u"127.0.0.1"_s);
            QVERIFY(event.value(u"pid").isNull());
        }
        QCOMPARE(states, (QStringList{u"Starting"_s, u"Connected"_s, u"Stopping"_s, u"Stopped"_s}));
        // Stopped quiescently: the session was ended on the server too.
        QTRY_VERIFY_WITH_TIMEOUT(m_streamableServer->output.sliced(serverLogBefore).contains("session termination request"),
                                 5000);
    }

    void watchRecoversACrashAndStopsOnSigterm()
    {
        QProcess process;
        process.start(QStringLiteral(TETHERCTL),
                      {u"watch"_s, u"--json"_s, u"--initial-delay-ms"_s, u"20"_s, u"--max-delay-ms"_s, u"100"_s, u"--jitter"_s, u"0"_s,
                       u"--stdio"_s, demo(u"--crash-after-ms 300"_s)});
        QVERIFY(process.waitForStarted());
        QList<QJsonObject> events;
        QString pending;
        const auto readEvents = [&] {
            readJsonLines(process, &pending, &events);
            // Recovered: a Connected event after a Reconnecting one.
            for (qsizetype i = 1; i < events.size(); ++i) {
                if (events.at(i).value(u"state").toString() == u"Connected"
                    && events.at(i - 1).value(u"state").toString() == u"Starting"
                    && events.at(i - 1).value(u"generation").toInt() >= 2)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(readEvents(), 10000);
        QSet<qint64> pids;
        for (const QJsonObject &event : std::as_const(events)) {
            for (const QString &key : {u"time"_s, u"server"_s, u"state"_s, u"attempt"_s, u"maxAttempts"_s,
                                       u"nextDelayMs"_s, u"generation"_s, u"pid"_s, u"tools"_s, u"reason"_s,
                                       u"cause"_s})
                QVERIFY2(event.contains(key), qPrintable(key));
            if (event.value(u"pid").isDouble())
                pids.insert(event.value(u"pid").toInteger());
        }
        const auto lost = std::find_if(events.cbegin(), events.cend(), [](const QJsonObject &e) {
            return e.value(u"state").toString() == u"Reconnecting";
        });
        QVERIFY(lost != events.cend());
        QVERIFY2(lost->value(u"reason").toString().contains(u"code 1"_s)
                     && lost->value(u"reason").toString().contains(u"crashing after 300 ms"_s),
                 qPrintable(lost->value(u"reason").toString()));
        QCOMPARE(lost->value(u"nextDelayMs").toInt(), 20);
        // The cause in a few words, as the window shows it; none before the crash or once connected again.
        QVERIFY2(lost->value(u"cause").toString().startsWith(u"exited with code 1: "_s)
                     && lost->value(u"cause").toString().contains(u"crashing after 300 ms"_s),
                 qPrintable(lost->value(u"cause").toString()));
        QVERIFY(events.first().value(u"cause").isNull());
        for (const QJsonObject &event : std::as_const(events)) {
            if (event.value(u"state").toString() == u"Connected")
                QVERIFY(event.value(u"cause").isNull());
        }

        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        readEvents();
        QCOMPARE(events.last().value(u"state").toString(), u"Stopped"_s);
        QVERIFY(pids.size() >= 2);
        for (qint64 pid : std::as_const(pids))
            QVERIFY(!processAlive(pid));
    }

    void watchShowsACrashLoopExhaustingItsBudget()
    {
        QProcess process;
        process.start(QStringLiteral(TETHERCTL),
                      {u"watch"_s, u"--max-attempts"_s, u"2"_s, u"--initial-delay-ms"_s, u"10"_s, u"--max-delay-ms"_s,
                       u"20"_s, u"--stdio"_s, demo(u"--fail-at-startup"_s)});
        QVERIFY(process.waitForStarted());
        QString out;
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(process.readAllStandardOutput())).contains(u"Failed"_s), 10000);
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitCode(), 0);
        out += QString::fromUtf8(process.readAllStandardOutput());
        QStringList states;
        for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts))
            states.append(line.section(u"  "_s, 2, 2));
        QCOMPARE(states, (QStringList{u"Starting"_s, u"Retrying"_s, u"Starting"_s, u"Retrying"_s, u"Starting"_s,
                                      u"Failed"_s, u"Stopping"_s, u"Stopped"_s}));
        QVERIFY(out.contains(u"attempt 2/2"_s));
        QVERIFY(out.contains(u"gave up after 2 attempts"_s));
        // Said once, in the Failed line.
        QCOMPARE(QString::fromUtf8(process.readAllStandardError()), QString());
    }

    void watchRejectsAnInvalidPolicy()
    {
        const Run run = tetherctl({u"watch"_s, u"--max-delay-ms"_s, u"100"_s, u"--initial-delay-ms"_s, u"500"_s,
                                   u"--stdio"_s, demo()});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"maxDelayMs = 100"_s) && run.err.contains(u"initialDelayMs = 500"_s), qPrintable(run.err));
    }

    void statusAndCheckOnAConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"good"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
            {u"bad"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                                   {u"args"_s, QJsonArray{u"--fail-at-startup"_s}}}},
            {u"off"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"enabled"_s, false}}},
        }}}).toJson()));

        const Run status = tetherctl({u"status"_s, u"--config"_s, path});
        // No Tether runs the config: the table is of servers status started itself (exit 5).
        QCOMPARE(status.exitCode, 5);
        QCOMPARE(status.err, noInstanceNote(path));
        QVERIFY2(status.out.contains(QRegularExpression(u"^good +Connected +12 +\\d+"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QVERIFY2(status.out.contains(QRegularExpression(u"^bad +Retrying +0 +- .*code 3"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QVERIFY2(status.out.contains(QRegularExpression(u"^off +Stopped .*disabled"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));

        const Run check = tetherctl({u"check"_s, u"--config"_s, path});
        QCOMPARE(check.exitCode, 2);
        QVERIFY2(check.err.contains(u"server 'bad' is not up"_s) && check.err.contains(u"refusing to start"_s),
                 qPrintable(check.err));
        QVERIFY(!check.err.contains(u"'good'"_s));

        // One server's tools in its own order (its first is echo), as a running Tether lists them.
        const Run goodTools = tetherctl({u"tools"_s, u"--config"_s, path, u"good"_s});
        QCOMPARE(goodTools.exitCode, 0);
        QVERIFY2(goodTools.out.startsWith(u"good__echo "_s), qPrintable(goodTools.out));

        const Run call = tetherctl({u"call"_s, u"--config"_s, path, u"good"_s, u"add"_s, u"{\"a\": 20, \"b\": 22}"_s});
        QCOMPARE(call.exitCode, 0);
        QCOMPARE(call.out, u"42\n"_s);
        const Run routed = tetherctl({u"call"_s, u"--config"_s, path, u"good__echo"_s, u"{\"message\": \"routed\"}"_s});
        QCOMPARE(routed.exitCode, 0);
        QCOMPARE(routed.out, u"routed\n"_s);
        // bad is enabled and not connected: named, and the exit status says so.
        const Run tools = tetherctl({u"tools"_s, u"--config"_s, path});
        QCOMPARE(tools.exitCode, 3);
        QVERIFY2(tools.out.startsWith(u"good__add"_s), qPrintable(tools.out));
        QVERIFY2(tools.err.contains(u"server 'bad' is not connected, so its tools are not listed"_s), qPrintable(tools.err));
        QVERIFY(!tools.err.contains(u"'off'"_s));
        // off is disabled, and asked about by name: named too, not an empty list that looks fine.
        const Run offTools = tetherctl({u"tools"_s, u"--config"_s, path, u"off"_s});
        QCOMPARE(offTools.exitCode, 3);
        QVERIFY2(offTools.err.contains(u"server 'off' is not connected, so its tools are not listed: disabled"_s),
                 qPrintable(offTools.err));
    }

    // A command that runs the servers itself speaks on stderr of what it was asked: a server that
    // failed for good is named once, by the command, and not at all by a call to another server.
    void stderrSpeaksOfWhatTheCommandWasAsked()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"good"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
            {u"ghost"_s, QJsonObject{{u"command"_s, u"/nonexistent/tether-ghost-server"_s}}},
            {u"typo"_s, QJsonObject{{u"comand"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));

        const Run call = tetherctl({u"call"_s, u"--config"_s, path, u"good__add"_s, u"{\"a\": 1, \"b\": 2}"_s});
        QCOMPARE(call.exitCode, 0);
        QCOMPARE(call.out, u"3\n"_s);
        QCOMPARE(call.err, noInstanceNote(path));

        const Run status = tetherctl({u"status"_s, u"--config"_s, path});
        QCOMPARE(status.exitCode, 5);
        QVERIFY2(status.out.contains(QRegularExpression(u"^ghost +Failed .*not retried"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QCOMPARE(status.err, noInstanceNote(path));

        for (const QString &listed : {u"tools"_s, u"resources"_s, u"prompts"_s}) {
            const Run lists = tetherctl({listed, u"--config"_s, path});
            QCOMPARE(lists.exitCode, 3);
            QVERIFY2(lists.err.startsWith(noInstanceNote(path) + u"tetherctl: server 'ghost' is not connected, so its %1 are "
                                                                  "not listed: connection failed: could not start"_s.arg(listed)),
                     qPrintable(lists.err));
            QCOMPARE(lists.err.count(u"'ghost'"_s), 1);
            QCOMPARE(lists.err.count(u"'typo'"_s), 1);
            const Run goodLists = tetherctl({listed, u"--config"_s, path, u"good"_s});
            QCOMPARE(goodLists.exitCode, 0);
            QCOMPARE(goodLists.err, noInstanceNote(path));
        }

        // Asked for by its public name, or without a server, what ghost would have offered says ghost is not up.
        const Run ghostCall = tetherctl({u"call"_s, u"--config"_s, path, u"ghost__echo"_s, u"{}"_s});
        QCOMPARE(ghostCall.exitCode, 2);
        QVERIFY2(ghostCall.err.endsWith(u"tetherctl: calling 'ghost__echo' failed: server 'ghost' has failed (last error: "
                                        "could not start '/nonexistent/tether-ghost-server': No such file or directory); "
                                        "reconnect it in Tether\n"_s),
                 qPrintable(ghostCall.err));
        const Run read = tetherctl({u"read"_s, u"--config"_s, path, u"demo://nothing"_s});
        QCOMPARE(read.exitCode, 2);
        QVERIFY2(read.err.endsWith(u"(not connected, so not asked: ghost, typo)\n"_s), qPrintable(read.err));

        // watch prints each state with its reason: giving up is not said again on stderr.
        QProcess watch;
        watch.start(QStringLiteral(TETHERCTL), {u"watch"_s, u"--config"_s, path});
        QString lines;
        QTRY_VERIFY_WITH_TIMEOUT((lines += QString::fromUtf8(watch.readAllStandardOutput())).contains(u"Connected"_s)
                                     && lines.contains(QRegularExpression(u"ghost +Failed .*not retried"_s)),
                                 15000);
        watch.terminate();
        QVERIFY(watch.waitForFinished(15000));
        QCOMPARE(QString::fromUtf8(watch.readAllStandardError()), noInstanceNote(path));

        // Giving up is a detail of the run, there with --verbose.
        const Run verbose = tetherctl({u"call"_s, u"--config"_s, path, u"good__add"_s, u"{\"a\": 1, \"b\": 2}"_s, u"-v"_s});
        QCOMPARE(verbose.exitCode, 0);
        QVERIFY2(verbose.err.contains(u"info: server 'ghost': connection failed: "_s), qPrintable(verbose.err));
    }

    // A config without servers is said to have none, not shown as a table without rows.
    void statusOfAConfigWithoutServers()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QByteArray("{\"mcpServers\": {}}\n")));
        const Run status = tetherctl({u"status"_s, u"--config"_s, path});
        QCOMPARE(status.out, u"(no servers in the config: add them to its file, or bring them in with tetherctl import)\n"_s);
        QCOMPARE(tetherctl({u"status"_s, u"--json"_s, u"--config"_s, path}).out, u"[\n]\n"_s);
    }

    // The table fits a terminal: a server's command shows as its program and first arguments, its
    // folder left out; --json has it whole. A server waiting for a person is told what tetherctl does.
    void statusShowsTheCommandShort()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QJsonArray args{u"--tools"_s, u"2"_s, u"--log-notifications"_s, u"--crash-after-ms"_s, u"600000"_s};
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"args"_s, args}}},
            {u"manual"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                                      {u"args"_s, QJsonArray{u"--fail-at-startup"_s}},
                                      {u"reconnect"_s, QJsonObject{{u"enabled"_s, false}}}}},
        }}}).toJson()));

        const Run status = tetherctl({u"status"_s, u"--config"_s, path});
        QVERIFY2(status.out.contains(QRegularExpression(u"\\ASERVER +STATE +TOOLS +PID +TRANSPORT +REASON\n"_s)),
                 qPrintable(status.out));
        QVERIFY2(status.out.contains(QRegularExpression(u"^demo +Connected +14 +\\d+ +stdio: tether-demo-server --tools 2 …\n"_s,
                                                        QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QVERIFY2(!status.out.contains(QStringLiteral(TETHER_DEMO_SERVER)), qPrintable(status.out));
        QVERIFY2(status.out.contains(u"reconnect is disabled for this server; nothing here connects it again"_s),
                 qPrintable(status.out));
        QVERIFY2(!status.out.contains(u"Reconnect or Start"_s) && !status.err.contains(u"Reconnect or Start"_s),
                 qPrintable(status.out + status.err));

        const Run json = tetherctl({u"status"_s, u"--json"_s, u"--config"_s, path});
        const QJsonArray rows = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(rows.at(0).toObject().value(u"transport"_s).toString(),
                 u"stdio: "_s + QStringLiteral(TETHER_DEMO_SERVER) + u" --tools 2 --log-notifications --crash-after-ms 600000"_s);
    }

    // watch's lines put the names and the states in columns.
    void watchLinesAreAligned()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"a"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
            {u"a-longer-name"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));
        QProcess watch;
        watch.start(QStringLiteral(TETHERCTL), {u"watch"_s, u"--config"_s, path});
        QString out;
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(watch.readAllStandardOutput())).count(u"Connected"_s) == 2, 15000);
        watch.terminate();
        QVERIFY(watch.waitForFinished(15000));
        out += QString::fromUtf8(watch.readAllStandardOutput());
        // "TIME  NAME  STATE  …": the state starts in the same column on every line, and so does what follows it.
        static const QRegularExpression line(u"^\\S+  (a|a-longer-name) +(\\S+) +"_s);
        QSet<qsizetype> stateColumns;
        QSet<qsizetype> afterColumns;
        for (const QString &text : out.split(u'\n', Qt::SkipEmptyParts)) {
            const QRegularExpressionMatch match = line.match(text);
            QVERIFY2(match.hasMatch(), qPrintable(text));
            stateColumns.insert(match.capturedStart(2));
            afterColumns.insert(match.capturedEnd(0));
        }
        QCOMPARE(stateColumns.size(), 1);
        QCOMPARE(afterColumns.size(), 1);
    }

    // What the shell completions offer: every server of the file in its order, none of them started.
    void serversListsTheNamesWithoutStartingThem()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QString started = dir.filePath(u"started"_s);
        QVERIFY(writeFile(path, uR"({"mcpServers": {
            "zeta": {"command": "touch", "args": ["%1"]},
            "alpha": {"command": "touch", "args": ["%1"]},
            "off": {"command": "touch", "args": ["%1"], "enabled": false}}})"_s.arg(started).toUtf8()));

        const Run names = tetherctl({u"servers"_s, u"--config"_s, path});
        QCOMPARE(names.exitCode, 0);
        QCOMPARE(names.out, u"zeta\nalpha\noff\n"_s);
        QCOMPARE(names.err, QString());
        const Run json = tetherctl({u"servers"_s, u"--json"_s, u"--config"_s, path});
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).array(), (QJsonArray{u"zeta"_s, u"alpha"_s, u"off"_s}));
        QVERIFY2(!QFile::exists(started), "a server was started");

        QTemporaryDir emptyConfigHome;
        const Run demoNames = tetherctl({u"servers"_s}, 30000, emptyConfigHome.path());
        QCOMPARE(demoNames.exitCode, 0);
        QCOMPARE(demoNames.out, u"demo\nflaky\nbroken\n"_s);

        QVERIFY(writeFile(path, "{ \"mcpServers\": "));
        const Run broken = tetherctl({u"servers"_s, u"--config"_s, path});
        QCOMPARE(broken.exitCode, 2);
        QVERIFY2(oneLine(broken.err), qPrintable(broken.err));
    }

    void checkPassesWhenEveryServerComesUp()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"one"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
            {u"two"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
        }}}).toJson()));
        const Run check = tetherctl({u"check"_s, u"--config"_s, path});
        QCOMPARE(check.exitCode, 0);
        QCOMPARE(check.err, noInstanceNote(path));
    }

    void brokenConfigIsReportedWithLineAndColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" },,\n  }\n}\n"));
        const Run status = tetherctl({u"status"_s, u"--config"_s, path});
        QCOMPARE(status.exitCode, 2);
        QVERIFY2(oneLine(status.err) && status.err.contains(u"line 3"_s), qPrintable(status.err));
    }

    void watchFollowsTheConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const auto config = [](const QJsonArray &editedArguments) {
            return QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
                {u"steady"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}},
                {u"edited"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"args"_s, editedArguments}}},
            }}}).toJson();
        };
        QVERIFY(writeFile(path, config({})));
        QProcess process;
        process.start(QStringLiteral(TETHERCTL), {u"watch"_s, u"--json"_s, u"--config"_s, path});
        QVERIFY(process.waitForStarted());
        QList<QJsonObject> events;
        QString pending;
        QString err;
        const auto read = [&] {
            readJsonLines(process, &pending, &events);
            err += QString::fromUtf8(process.readAllStandardError());
        };
        const auto connections = [&](const QString &server) {
            return std::count_if(events.cbegin(), events.cend(), [&](const QJsonObject &event) {
                return event.value(u"server").toString() == server && event.value(u"state").toString() == u"Connected";
            });
        };
        QTRY_VERIFY_WITH_TIMEOUT((read(), connections(u"steady"_s) == 1 && connections(u"edited"_s) == 1), 10000);

        // Only the server whose settings changed restarts.
        QVERIFY(writeFile(path, config({u"--tools"_s, u"1"_s})));
        QTRY_VERIFY_WITH_TIMEOUT((read(), connections(u"edited"_s) == 2), 10000);
        QVERIFY2(err.contains(u"tetherctl: %1 changed: added none; removed none; restarted edited; new policy, no restart none; tools hidden or shown none\n"_s
                                  .arg(path)),
                 qPrintable(err));
        QCOMPARE(connections(u"steady"_s), 1);

        // A file that cannot be used is reported and changes nothing.
        QVERIFY(writeFile(path, "{ \"mcpServers\": "));
        QTRY_VERIFY_WITH_TIMEOUT((read(), err.contains(u"%1 changed but cannot be used"_s.arg(path))), 5000);
        const qsizetype eventsBeforeStop = events.size();
        ::kill(pid_t(process.processId()), SIGTERM);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        read();
        for (qsizetype i = eventsBeforeStop; i < events.size(); ++i) {
            const QString state = events.at(i).value(u"state").toString();
            QVERIFY2(state == u"Stopping" || state == u"Stopped", qPrintable(state));
        }
        QCOMPARE(events.size(), eventsBeforeStop + 4);
    }

    void embeddedDefaultWhenThereIsNoConfigFile()
    {
        QTemporaryDir emptyConfigHome;
        const Run status = tetherctl({u"status"_s}, 30000, emptyConfigHome.path());
        QCOMPARE(status.exitCode, 5);
        QVERIFY2(status.out.contains(QRegularExpression(u"^demo +Connected"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QVERIFY2(status.out.contains(QRegularExpression(u"^flaky +Connected"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
        QVERIFY2(status.out.contains(QRegularExpression(u"^broken +Retrying"_s, QRegularExpression::MultilineOption)),
                 qPrintable(status.out));
    }

    void importsFromEachFormat_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("added");

        QTest::newRow("claude") << u"claude"_s << u"claude_desktop_config.json"_s
                                << QStringList{u"filesystem"_s, u"github"_s, u"memory"_s};
        QTest::newRow("cursor") << u"cursor"_s << u"cursor_mcp.json"_s
                                << QStringList{u"remote-api"_s, u"legacy-events"_s, u"local"_s};
        QTest::newRow("vscode") << u"vscode"_s << u"vscode_mcp.json"_s
                                << QStringList{u"github"_s, u"playwright"_s, u"events"_s};
        // settings.json as VS Code writes it: comments and trailing commas (JSONC).
        QTest::newRow("vscode settings") << u"vscode"_s << u"vscode_settings.json"_s
                                         << QStringList{u"events"_s, u"github"_s, u"playwright"_s};
    }

    void importsFromEachFormat()
    {
        QFETCH(QString, format);
        QFETCH(QString, file);
        QFETCH(QStringList, added);
        QTemporaryDir dir;
        const QString target = dir.filePath(u"tether/servers.json"_s);
        const QString source = QStringLiteral(TETHER_TEST_DATA "/config/") + file;

        // The user's own file, with a server and a key Tether does not know.
        QVERIFY(QDir().mkpath(dir.filePath(u"tether"_s)));
        QVERIFY(writeFile(target, R"({"comment": "mine", "mcpServers": {"memory": {"command": "my-memory"}}})"));

        const Run run = tetherctl({u"import"_s, format, source, u"--config"_s, target});
        QCOMPARE(run.exitCode, 0);
        QStringList expected = added;
        expected.removeAll(u"memory"_s);
        QVERIFY2(run.out.contains(u"imported into %1: %2"_s.arg(target, expected.join(u", "_s))), qPrintable(run.out));
        if (added.contains(u"memory"_s))
            QVERIFY2(run.out.contains(u"skipped memory: Tether's config has a different server of that name"_s), qPrintable(run.out));

        QFile saved(target);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(saved.readAll()).object();
        QCOMPARE(root.value(u"comment").toString(), u"mine"_s);
        const QJsonObject servers = root.value(u"mcpServers").toObject();
        QCOMPARE(servers.value(u"memory").toObject().value(u"command").toString(), u"my-memory"_s);
        for (const QString &name : std::as_const(expected))
            QVERIFY2(servers.contains(name), qPrintable(name));
        if (format != u"claude") {
            // Remote entries keep their url, type and headers as written.
            const QJsonObject remote = servers.value(format == u"cursor" ? u"remote-api"_s : u"github"_s).toObject();
            QVERIFY(remote.value(u"url").toString().startsWith(u"https://"_s));
            QCOMPARE(remote.value(u"headers").toObject().value(u"Authorization").toString(), u"Bearer ${env:API_TOKEN}"_s);
        }
        QCOMPARE(saved.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
                 QFile::Permissions());

        // Importing again adds nothing and says why.
        const Run again = tetherctl({u"import"_s, format, source, u"--config"_s, target});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains(u"imported into %1: nothing"_s.arg(target)), qPrintable(again.out));
        QVERIFY2(again.out.contains(u"already in Tether's config"_s), qPrintable(again.out));
    }

    void importRefusesABrokenTarget()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(target, "{ \"mcpServers\": "));
        QFile broken(target);
        const Run run = tetherctl({u"import"_s, u"claude"_s, QStringLiteral(TETHER_TEST_DATA "/config/claude_desktop_config.json"),
                                   u"--config"_s, target});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err) && run.err.contains(u"nothing was imported"_s), qPrintable(run.err));
        QVERIFY(broken.open(QIODevice::ReadOnly));
        QCOMPARE(broken.readAll(), QByteArray("{ \"mcpServers\": "));
    }

    void parallelImportsLoseNothing()
    {
        // Eight imports at a time into one config, each adding names of its own, round after
        // round: every server lands, and whenever the file changes it is whole and the user's alone.
        QTemporaryDir dir;
        const QString target = dir.filePath(u"tether/servers.json"_s);
        QVERIFY(QDir().mkpath(dir.filePath(u"tether"_s)));
        QVERIFY(writeFile(target, R"({"mcpServers": {"mine": {"command": "my-server"}}})"));
        QVERIFY(QFile::setPermissions(target, QFile::ReadOwner | QFile::WriteOwner));
        QStringList expected{u"mine"_s};

        int samples = 0;
        QStringList badSamples;
        QFileSystemWatcher watcher({dir.filePath(u"tether"_s)});
        connect(&watcher, &QFileSystemWatcher::directoryChanged, this, [&] {
            ++samples;
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(readFile(target), &parseError);
            if (parseError.error != QJsonParseError::NoError || !document.object().value(u"mcpServers").isObject())
                badSamples.append(u"not a whole config: "_s + parseError.errorString());
            const QFile::Permissions others = QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup | QFile::ReadOther
                                              | QFile::WriteOther | QFile::ExeOther;
            if (QFile::permissions(target) & others)
                badSamples.append(u"readable by others: %1"_s.arg(QFile::permissions(target).toInt(), 0, 16));
        });

        constexpr int Writers = 8;
        constexpr int Rounds = 4;
        for (int round = 0; round < Rounds; ++round) {
            std::vector<std::unique_ptr<QProcess>> imports;
            for (int writer = 0; writer < Writers; ++writer) {
                const QStringList names{u"r%1w%2a"_s.arg(round).arg(writer), u"r%1w%2b"_s.arg(round).arg(writer)};
                expected += names;
                imports.push_back(startImport(importSource(dir, names), target));
            }
            QTRY_VERIFY_WITH_TIMEOUT(std::all_of(imports.cbegin(), imports.cend(),
                                                 [](const auto &process) { return process->state() == QProcess::NotRunning; }),
                                     60000);
            for (const auto &process : imports) {
                const QString err = QString::fromUtf8(process->readAllStandardError());
                QVERIFY2(process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0, qPrintable(err));
                const QString out = QString::fromUtf8(process->readAllStandardOutput());
                QVERIFY2(out.startsWith(u"imported into %1: r"_s.arg(target)), qPrintable(out));
            }
        }
        expected.sort();
        QCOMPARE(serverNames(target), expected);
        QVERIFY2(badSamples.isEmpty(), qPrintable(badSamples.join(u'\n')));
        QVERIFY(samples > 0);
        QCOMPARE(QFile::permissions(target) & ~(QFile::ReadUser | QFile::WriteUser), QFile::ReadOwner | QFile::WriteOwner);
    }

    void windowEditsAndImportsLoseNothing()
    {
        // The window's rule (an edit made on an older copy of the file is refused, and made again
        // once the new file is read) holds against imports running at the same time.
        QTemporaryDir dir;
        const QString target = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(target, R"({"mcpServers": {}})"));
        const Tether::ConfigContext context{[](const QString &) { return std::optional<QString>(); }, u"/"_s};
        Tether::ConfigStore store({target, false}, context, dir.filePath(u"unused.json"_s));
        store.load();
        QStringList expected;
        std::vector<std::unique_ptr<QProcess>> imports;
        for (int writer = 0; writer < 12; ++writer) {
            const QStringList names{u"import%1"_s.arg(writer)};
            expected += names;
            imports.push_back(startImport(importSource(dir, names), target));
        }
        for (int edit = 0; edit < 6; ++edit) {
            const QString name = u"window%1"_s.arg(edit);
            expected.append(name);
            QString error;
            // QTRY evaluates its condition once more after it holds: save once, not twice.
            bool saved = false;
            QTRY_VERIFY2_WITH_TIMEOUT(saved || (saved = store.save(withServer(store.document().root, name), &error)),
                                      qPrintable(error), 30000);
        }
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(imports.cbegin(), imports.cend(),
                                             [](const auto &process) { return process->state() == QProcess::NotRunning; }),
                                 60000);
        for (const auto &process : imports)
            QVERIFY2(process->exitCode() == 0, process->readAllStandardError().constData());
        expected.sort();
        QCOMPARE(serverNames(target), expected);
        QTRY_COMPARE_WITH_TIMEOUT(store.document().servers.size(), expected.size(), 5000);
    }

    void importWaitsForTheConfigLock()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(u"servers.json"_s);
        const QByteArray original = R"({"mcpServers": {}})";
        QVERIFY(writeFile(target, original));
        const QStringList import{u"import"_s, u"claude"_s, importSource(dir, {u"one"_s}), u"--config"_s, target};
        const QString lockPath = target + u".lock"_s;

        {
            // Another writer (this test) holds the lock all along: tetherctl gives up at its bound
            // and says who holds it.
            QLockFile held(lockPath);
            QVERIFY(held.tryLock());
            const Run run = tetherctl(import);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(oneLine(run.err), qPrintable(run.err));
            QVERIFY2(run.err.contains(u"(pid %1)"_s.arg(QCoreApplication::applicationPid()))
                         && run.err.contains(u"holds its lock %1 and did not let go within 10 s, so nothing was saved"_s.arg(lockPath)),
                     qPrintable(run.err));
            QCOMPARE(readFile(target), original);
        }

        // A lock left behind by a writer that is gone (its pid no longer runs) is taken over.
        QProcess gone;
        gone.start(u"true"_s, QStringList());
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());
        QVERIFY(!processAlive(deadPid));
        QVERIFY(writeFile(lockPath, QByteArray::number(deadPid) + "\ntetherctl\n" + QSysInfo::machineHostName().toUtf8() + '\n'));
        const Run run = tetherctl(import);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith(u"imported into %1: one\n"_s.arg(target)), qPrintable(run.out));
        QVERIFY(!QFile::exists(lockPath));
    }

    void importRefusesATargetWithADuplicateServer()
    {
        // Saving the import would keep only the last "demo": nothing is imported, and the lines are named.
        QTemporaryDir dir;
        const QString target = dir.filePath(u"servers.json"_s);
        const QByteArray original = "{\n  \"mcpServers\": {\n    \"demo\": {\"command\": \"first\"},\n"
                                    "    \"other\": {\"command\": \"o\"},\n    \"demo\": {\"command\": \"second\"}\n  }\n}\n";
        QVERIFY(writeFile(target, original));
        const Run run = tetherctl({u"import"_s, u"claude"_s, importSource(dir, {u"new"_s}), u"--config"_s, target});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(oneLine(run.err), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"%1: mcpServers.demo is defined 2 times (lines 3 and 5): JSON keeps only the last one, "
                                  "and saving the import would drop the others, so nothing was imported"_s.arg(target)),
                 qPrintable(run.err));
        QCOMPARE(readFile(target), original);
    }

    void checkWarnsOfAKeyWrittenTwice()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, "{\"mcpServers\": {\n  \"demo\": {\"command\": \"/nonexistent/old-server\",\n"
                                "           \"command\": \"" TETHER_DEMO_SERVER "\"}\n}}\n"));
        const Run check = tetherctl({u"check"_s, u"--config"_s, path});
        // The last one is taken and the server comes up: a warning, not a failure.
        QCOMPARE(check.exitCode, 0);
        QCOMPARE(check.err, noInstanceNote(path) + u"tetherctl: warning: %1: mcpServers.demo.command is defined 2 times (lines 2 and 3): JSON "
                            "keeps only the last one, and Tether uses it; remove the others\n"_s.arg(path));
    }

    // Ctrl-C, SIGTERM or SIGHUP while a command runs: what is in flight is cancelled at the
    // server, the server and all it started are closed and waited for, and the exit status is
    // 128 + the signal. `sign` is the stderr text (with --verbose) that shows the command is
    // where the signal should find it.
    void signalClosesEverythingAndExits_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("fromConfig");
        QTest::addColumn<QString>("sign");
        QTest::addColumn<int>("signalNumber");
        const QString sleeping = u"sleeping 60000 ms"_s;
        const QString handshake = u"daemon pid"_s; // the server is up; its initialize is slow
        for (int signalNumber : {SIGINT, SIGTERM, SIGHUP}) {
            const QString name = Tether::signalName(signalNumber);
            QTest::addRow("call --stdio, %s", qPrintable(name)) << u"call"_s << false << sleeping << signalNumber;
            QTest::addRow("call --config, %s", qPrintable(name)) << u"call"_s << true << sleeping << signalNumber;
        }
        QTest::newRow("tools --stdio, handshake") << u"tools"_s << false << handshake << SIGINT;
        QTest::newRow("tools --config, handshake") << u"tools"_s << true << handshake << SIGTERM;
        QTest::newRow("status, handshake") << u"status"_s << true << handshake << SIGHUP;
        QTest::newRow("check, handshake") << u"check"_s << true << handshake << SIGINT;
    }

    void signalClosesEverythingAndExits()
    {
        QFETCH(QString, command);
        QFETCH(bool, fromConfig);
        QFETCH(QString, sign);
        QFETCH(int, signalNumber);
        LeavingServer server;
        const QStringList slowHandshake{u"--slow-initialize-ms"_s, u"60000"_s};
        const QStringList serverFlags = command == u"call" ? QStringList{} : slowHandshake;
        QStringList arguments{command, u"--verbose"_s};
        if (fromConfig)
            arguments << u"--config"_s << server.config(serverFlags);
        else
            arguments << u"--stdio"_s << server.stdioFlag(serverFlags);
        if (command == u"call")
            arguments << u"sleep"_s << u"{\"ms\": 60000}"_s;

        QProcess process;
        process.start(QStringLiteral(TETHERCTL), arguments);
        QVERIFY(process.waitForStarted());
        QString err;
        QTRY_VERIFY_WITH_TIMEOUT((err += QString::fromUtf8(process.readAllStandardError())).contains(sign), 10000);
        const qint64 serverPid = QRegularExpression(u"started pid (\\d+)"_s).match(err).captured(1).toLongLong();
        const QList<qint64> left = server.leftPids();
        QVERIFY(serverPid > 0 && left.size() == 2);

        ::kill(pid_t(process.processId()), signalNumber);
        QVERIFY(process.waitForFinished(15000));
        err += QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + signalNumber);
        QVERIFY2(err.contains(u"tetherctl: interrupted by %1"_s.arg(Tether::signalName(signalNumber))), qPrintable(err));
        const QByteArray log = readFile(server.logFile);
        if (command == u"call")
            QVERIFY2(log.contains("demo: cancelled request"), log.constData());
        QVERIFY2(log.contains("demo: stdin closed; exiting"), log.constData()); // closed politely
        // Waited for: nothing of the server is left by the time tetherctl has exited.
        QVERIFY(!processAlive(serverPid));
        for (qint64 pid : left)
            QVERIFY2(!processAlive(pid), qPrintable(QString::number(pid)));
    }

    // kill -9 of a watching tetherctl, on one server or through the manager of a config: the
    // launcher of each server outlives it just long enough to kill everything the server
    // started, the grandchild in its group and the daemon that escaped with setsid() included.
    void sigkillLeavesNothingBehind_data()
    {
        QTest::addColumn<bool>("fromConfig");
        QTest::newRow("watch --stdio") << false;
        QTest::newRow("watch --config") << true;
    }

    void sigkillLeavesNothingBehind()
    {
        QFETCH(bool, fromConfig);
        LeavingServer server;
        QProcess process;
        process.start(QStringLiteral(TETHERCTL), fromConfig ? QStringList{u"watch"_s, u"--config"_s, server.config()}
                                                            : QStringList{u"watch"_s, u"--stdio"_s, server.stdioFlag()});
        QVERIFY(process.waitForStarted());
        QString out;
        const QRegularExpression connectedPid(u"Connected +pid (\\d+)"_s);
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(process.readAllStandardOutput())).contains(connectedPid),
                                 10000);
        const qint64 serverPid = connectedPid.match(out).captured(1).toLongLong();
        QTRY_COMPARE(server.leftPids().size(), 2);
        const QList<qint64> left = server.leftPids();
        for (qint64 pid : left)
            QVERIFY(processAlive(pid));

        ::kill(pid_t(process.processId()), SIGKILL);
        QVERIFY(process.waitForFinished());
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(serverPid), 5000);
        for (qint64 pid : left)
            QTRY_VERIFY2_WITH_TIMEOUT(!processAlive(pid), qPrintable(QString::number(pid)), 5000);
    }

    // A server whose folder is missing is told so, with the folder, not as a broken install.
    void missingFolderIsNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
            {u"away"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"cwd"_s, u"gone"_s}}}}}}).toJson()));
        const Run check = tetherctl({u"check"_s, u"--config"_s, path});
        QCOMPARE(check.exitCode, 2);
        QVERIFY2(check.err.contains(u"its folder (\"cwd\") %1 does not exist; create it, or correct \"cwd\" in the config"_s
                                        .arg(dir.filePath(u"gone"_s))),
                 qPrintable(check.err));
        QVERIFY2(!check.err.contains(u"reinstall"_s), qPrintable(check.err));
    }

    // Without tether-launcher next to it, no server starts, and the message says why.
    void missingLauncherIsAnError()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(u"tetherctl"_s);
        QVERIFY(QFile::copy(QStringLiteral(TETHERCTL), copy));
        QProcess process;
        process.start(copy, {u"tools"_s, u"--stdio"_s, demo()});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(oneLine(err) && err.contains(u"Tether's launcher %1 cannot run"_s.arg(dir.filePath(u"tether-launcher"_s)))
                     && err.contains(u"reinstall Tether"_s),
                 qPrintable(err));
    }

    void serverDiesWithTetherctl()
    {
        QProcess process;
        process.start(QStringLiteral(TETHERCTL),
                      {u"call"_s, u"--verbose"_s, u"--stdio"_s, demo(), u"sleep"_s, u"{\"ms\": 60000}"_s});
        QVERIFY(process.waitForStarted());
        // The demo server announces its pid on stderr, which --verbose forwards.
        QString err;
        qint64 serverPid = 0;
        const QRegularExpression startedPid(u"started pid (\\d+)"_s);
        QTRY_VERIFY_WITH_TIMEOUT((err += QString::fromUtf8(process.readAllStandardError()),
                                  serverPid = startedPid.match(err).captured(1).toLongLong()) > 0,
                                 10000);
        QVERIFY(processAlive(serverPid));
        ::kill(pid_t(process.processId()), SIGKILL);
        QVERIFY(process.waitForFinished());
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(serverPid), 5000);
    }

private:
    ServerEverythingHttp &server(const QString &mode) { return mode == u"sse" ? *m_sseServer : *m_streamableServer; }

    std::unique_ptr<ServerEverythingHttp> m_streamableServer;
    std::unique_ptr<ServerEverythingHttp> m_sseServer;
};

QTEST_GUILESS_MAIN(TestTetherctl)
#include "tst_tetherctl.moc"
