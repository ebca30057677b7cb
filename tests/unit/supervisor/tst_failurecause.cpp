// The cause of a failure in a few words, and whether a retry could fix it.
#include "supervisor/failurecause.h"

#include <QTest>

#include <cerrno>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestFailureCause final : public QObject
{
    Q_OBJECT

private slots:
    void failureCause_data()
    {
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("startErrno"); // 0: started
        QTest::addColumn<int>("exitCode");   // -1: none
        QTest::addColumn<int>("exitSignal"); // 0: none
        QTest::addColumn<QString>("lastStderrLine");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("retryable");
        QTest::addColumn<QString>("signInScope"); // "-": no sign-in fixes it
        QTest::addColumn<bool>("signsIn");        // the connection carried Tether's sign-in

        const QString closed = u"connection closed during initialize: process exited with code 3"_s;
        const auto row = [](const char *name, const QString &error, int startErrno, int exitCode, int exitSignal,
                            const QString &stderrLine, const QString &text, bool retryable) {
            QTest::newRow(name) << error << startErrno << exitCode << exitSignal << stderrLine << text << retryable << u"-"_s
                                << false;
        };
        row("not found", u"could not start 'github-mcp-server': No such file or directory"_s, ENOENT, -1, 0, QString(),
            u"command not found: github-mcp-server (install it, or correct \"command\" in the config)"_s, false);
        row("not executable", u"could not start 'github-mcp-server': Permission denied"_s, EACCES, -1, 0, QString(),
            u"not an executable program: github-mcp-server (make it executable (chmod +x), or correct \"command\" in the config)"_s,
            false);
        row("not a program", u"could not start 'github-mcp-server': Exec format error"_s, ENOEXEC, -1, 0, QString(),
            u"not an executable program: github-mcp-server (make it executable (chmod +x), or correct \"command\" in the config)"_s,
            false);
        row("another start error", u"could not start 'github-mcp-server': Too many open files"_s, EMFILE, -1, 0, QString(),
            u"could not start github-mcp-server: Too many open files"_s, true);
        row("exited", closed, 0, 3, 0, u"refusing to start"_s, u"exited with code 3: refusing to start"_s, true);
        row("exited silently", closed, 0, 3, 0, QString(), u"exited with code 3"_s, true);
        row("killed", u"connection closed: process killed by SIGKILL"_s, 0, -1, 9, QString(), u"killed by SIGKILL"_s, true);
        row("401", u"initialize failed: https://mcp.example.com/mcp answered initialize with HTTP 401 Unauthorized: the server "
                   "needs credentials"_s, 0, -1, 0, QString(),
            u"HTTP 401: needs a token (set \"Authorization\" in the server's \"headers\")"_s, false);
        row("403", u"https://mcp.example.com/mcp answered initialize with HTTP 403 Forbidden: refused"_s, 0, -1, 0, QString(),
            u"HTTP 403: access refused (check the token in the server's \"headers\")"_s, false);
        // A token refused for want of scope: a sign-in for more fixes it, not one in the headers.
        const QString lacksScope = u"tools/list failed: https://mcp.example.com/mcp answered 'tools/list' with HTTP 403 "
                                   "Forbidden: the sign-in lacks the access this needs (scope mcp:read mcp:list): "
                                   "\"tools/list needs mcp:list\"; sign in again"_s;
        QTest::newRow("403 for want of scope")
            << lacksScope << 0 << -1 << 0 << QString() << u"needs more access: scope mcp:read mcp:list (sign in again)"_s
            << false << u"mcp:read mcp:list"_s << true;
        QTest::newRow("403 for want of a scope unnamed")
            << u"https://mcp.example.com/mcp answered 'tools/list' with HTTP 403 Forbidden: the sign-in lacks the access "
               "this needs; sign in again"_s
            << 0 << -1 << 0 << QString() << u"needs more access (sign in again)"_s << false << QString() << true;
        // The same words from a server without Tether's sign-in (quoting another's refusal): no
        // sign-in of this one can fix it.
        row("403 for want of scope, quoted", lacksScope, 0, -1, 0, QString(),
            u"HTTP 403: access refused (check the token in the server's \"headers\")"_s, false);
        // Refused for scopes the sign-in asked for already: signing in again would ask for the same.
        QTest::newRow("403 for a scope given already")
            << u"tools/list failed: https://mcp.example.com/mcp answered 'tools/list' with HTTP 403 Forbidden: the server "
               "refuses a token for scopes it was given already (mcp:read mcp:list); signing in again cannot help"_s
            << 0 << -1 << 0 << QString()
            << u"scope mcp:read mcp:list refused though the sign-in has it (signing in again cannot help; the server's "
               "logs or whoever runs it can say why)"_s
            << false << u"-"_s << true;
        row("404", u"https://mcp.example.com/x answered initialize with HTTP 404 Not Found"_s, 0, -1, 0, QString(),
            u"HTTP 404: no MCP endpoint at this URL (check \"url\" in the config)"_s, true);
        row("503", u"https://mcp.example.com/mcp answered initialize with HTTP 503 Service Unavailable"_s, 0, -1, 0, QString(),
            u"HTTP 503: the server is failing (its own logs say why)"_s, true);
        row("protocol version", u"server 'demo' answered protocol version '1999-01-01', which Tether does not speak (Tether "
                                "speaks 2025-11-25); update the server or Tether"_s, 0, -1, 0, QString(),
            u"unsupported protocol version 1999-01-01 (update the server or Tether)"_s, false);
        const QString notDiscovered = u"it answered server/discover with -32601 Method not found"_s;
        row("era pinned by the setting",
            u"server 'demo' does not speak protocol 2026-07-28, to which its \"protocol\" setting pins it: %1; set "
            "\"protocol\" to \"auto\" or \"2025-11-25\""_s.arg(notDiscovered), 0, -1, 0, QString(),
            u"does not speak protocol 2026-07-28 (set \"protocol\" to \"auto\")"_s, false);
        row("era pinned by --protocol",
            u"server 'demo' does not speak protocol 2026-07-28, to which --protocol pins it: %1; leave out --protocol, or "
            "give --protocol 2025-11-25"_s.arg(notDiscovered), 0, -1, 0, QString(),
            u"does not speak protocol 2026-07-28 (leave out --protocol)"_s, false);
        row("the other era pinned by --protocol",
            u"server 'demo' speaks protocol 2026-07-28 only, and --protocol pins it to 2025-11-25, which it does not "
            "speak; leave out --protocol, or give --protocol 2026-07-28"_s, 0, -1, 0, QString(),
            u"speaks protocol 2026-07-28 only (leave out --protocol)"_s, false);
        // A connection that never opened says where it was refused, and nothing of closing.
        row("refused", u"could not connect to http://127.0.0.1:9/mcp: connection refused; is the server running and listening "
                       "there?"_s, 0, -1, 0, QString(),
            u"could not connect to 127.0.0.1:9: connection refused (is the server running and listening at its url?)"_s, true);
        row("refused, the scheme's port", u"could not connect to https://mcp.example.com/mcp: connection refused; is the "
                                          "server running and listening there?"_s, 0, -1, 0, QString(),
            u"could not connect to mcp.example.com:443: connection refused (is the server running and listening at its "
            "url?)"_s, true);
        row("refused, IPv6", u"connection lost: could not connect to http://[::1]:8080/mcp: connection refused; is the "
                             "server running and listening there?"_s, 0, -1, 0, QString(),
            u"could not connect to [::1]:8080: connection refused (is the server running and listening at its url?)"_s, true);
        row("refused, no address", u"tunnel: connection refused"_s, 0, -1, 0, QString(),
            u"connection refused (is the server running and listening at its url?)"_s, true);
        row("hung", u"heartbeat: 3 pings in a row got no answer within 10 s"_s, 0, -1, 0, QString(),
            u"hung: pings got no answer"_s, true);
        row("anything else", u"tools/list failed: a result of the wrong shape"_s, 0, -1, 0, QString(),
            u"tools/list failed: a result of the wrong shape"_s, true);
    }

    void failureCause()
    {
        QFETCH(QString, error);
        QFETCH(int, startErrno);
        QFETCH(int, exitCode);
        QFETCH(int, exitSignal);
        QFETCH(QString, lastStderrLine);
        QFETCH(QString, text);
        QFETCH(bool, retryable);
        QFETCH(QString, signInScope);
        QFETCH(bool, signsIn);
        FailureFacts facts;
        facts.error = error;
        facts.signsIn = signsIn;
        facts.program = u"github-mcp-server"_s;
        if (startErrno)
            facts.startErrno = startErrno;
        if (exitCode >= 0)
            facts.exitCode = exitCode;
        if (exitSignal)
            facts.exitSignal = exitSignal;
        facts.lastStderrLine = lastStderrLine;
        const FailureCause cause = Tether::failureCause(facts);
        QCOMPARE(cause.text(), text);
        QCOMPARE(cause.retryable, retryable);
        QCOMPARE(cause.signInScope, signInScope == u"-" ? std::nullopt : std::optional<QString>(signInScope));
    }
};

QTEST_APPLESS_MAIN(TestFailureCause)
#include "tst_failurecause.moc"
