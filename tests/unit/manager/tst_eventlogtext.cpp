// How events read in a log to take away and which ones a filter lets through: levels, the line
// and JSON formats, the combined order of every server, the atomic export, tool call records.
#include "manager/eventfilter.h"
#include "manager/eventlogtext.h"
#include "support/testfiles.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::readFile;
using Tether::Testing::writeFile;

Q_DECLARE_METATYPE(Tether::ServerEvent)
Q_DECLARE_METATYPE(Tether::EventFilter)
Q_DECLARE_METATYPE(Tether::ToolCallReply)

namespace {

const QDateTime Noon = QDateTime(QDate(2026, 12, 1), QTime(12, 0, 0, 5), Qt::UTC);

ServerEvent serverEvent(ServerEvent::Kind kind, const QString &level, const QString &text, const QString &server = u"demo"_s)
{
    return {Noon, server, kind, level, text, {}};
}

ServerEvent stateChange(ServerState state, const QString &reason, const QString &server = u"demo"_s)
{
    ServerEvent change{Noon, server, ServerEvent::Kind::StateChange, {}, reason, {}};
    change.status.name = server;
    change.status.state = state;
    return change;
}

EventFilter filterOf(EventFilter::Level level, const QString &text = {}, const QString &server = {},
                   std::optional<ServerEvent::Kind> kind = {})
{
    return {server, level, kind, text};
}

} // namespace

class TestEventLogText final : public QObject
{
    Q_OBJECT

private slots:
    void level_data()
    {
        QTest::addColumn<ServerEvent>("event");
        QTest::addColumn<QString>("level");
        using K = ServerEvent::Kind;
        QTest::newRow("failed") << stateChange(ServerState::Failed, u"gave up"_s) << u"error"_s;
        QTest::newRow("retrying") << stateChange(ServerState::Retrying, u"exited"_s) << u"warning"_s;
        QTest::newRow("reconnecting") << stateChange(ServerState::Reconnecting, u"lost"_s) << u"warning"_s;
        QTest::newRow("disconnected") << stateChange(ServerState::Disconnected, u"lost"_s) << u"warning"_s;
        QTest::newRow("connected") << stateChange(ServerState::Connected, u"connected"_s) << u"info"_s;
        QTest::newRow("stopped") << stateChange(ServerState::Stopped, u"stopped"_s) << u"info"_s;
        QTest::newRow("stderr") << serverEvent(K::Stderr, u"stderr"_s, u"line"_s) << u"info"_s;
        QTest::newRow("log critical") << serverEvent(K::ServerLog, u"critical"_s, u"disk"_s) << u"critical"_s;
        QTest::newRow("log debug") << serverEvent(K::ServerLog, u"debug"_s, u"x"_s) << u"debug"_s;
        QTest::newRow("failed call") << serverEvent(K::ToolCall, u"warning"_s, u"x"_s) << u"warning"_s;
        QTest::newRow("config") << serverEvent(K::ConfigChange, u"info"_s, u"policy"_s) << u"info"_s;
    }

    void level()
    {
        QFETCH(ServerEvent, event);
        QFETCH(QString, level);
        QCOMPARE(eventLevel(event), level);
    }

    void filter_data()
    {
        QTest::addColumn<ServerEvent>("event");
        QTest::addColumn<EventFilter>("filter");
        QTest::addColumn<bool>("matches");
        using K = ServerEvent::Kind;
        using L = EventFilter::Level;
        const ServerEvent failed = stateChange(ServerState::Failed, u"gave up after 3 attempts"_s);
        const ServerEvent retrying = stateChange(ServerState::Retrying, u"exited with code 3"_s);
        const ServerEvent connected = stateChange(ServerState::Connected, u"connected"_s);
        const ServerEvent notice = serverEvent(K::ServerLog, u"notice"_s, u"Cache warmed"_s);
        const ServerEvent stderrLine = serverEvent(K::Stderr, u"stderr"_s, u"ERROR: oops"_s, u"other"_s);
        QTest::newRow("no filter") << connected << EventFilter{} << true;
        QTest::newRow("warnings: failed") << failed << filterOf(L::WarningsAndErrors) << true;
        QTest::newRow("warnings: retrying") << retrying << filterOf(L::WarningsAndErrors) << true;
        QTest::newRow("warnings: connected") << connected << filterOf(L::WarningsAndErrors) << false;
        QTest::newRow("warnings: notice") << notice << filterOf(L::WarningsAndErrors) << false;
        QTest::newRow("warnings: stderr has no level") << stderrLine << filterOf(L::WarningsAndErrors) << false;
        QTest::newRow("errors: failed") << failed << filterOf(L::Errors) << true;
        QTest::newRow("errors: retrying") << retrying << filterOf(L::Errors) << false;
        QTest::newRow("errors: critical") << serverEvent(K::ServerLog, u"critical"_s, u"x"_s) << filterOf(L::Errors) << true;
        QTest::newRow("errors: unknown level") << serverEvent(K::ServerLog, u"fatal?"_s, u"x"_s) << filterOf(L::Errors)
                                                << false;
        QTest::newRow("text ignores case") << notice << filterOf(L::Any, u"cache WARMED"_s) << true;
        QTest::newRow("text absent") << notice << filterOf(L::Any, u"cold"_s) << false;
        QTest::newRow("text finds the state") << failed << filterOf(L::Any, u"failed"_s) << true;
        QTest::newRow("server") << stderrLine << filterOf(L::Any, {}, u"other"_s) << true;
        QTest::newRow("other server") << notice << filterOf(L::Any, {}, u"other"_s) << false;
        QTest::newRow("kind") << notice << filterOf(L::Any, {}, {}, K::ServerLog) << true;
        QTest::newRow("other kind") << notice << filterOf(L::Any, {}, {}, K::Stderr) << false;
        QTest::newRow("all at once") << retrying << filterOf(L::WarningsAndErrors, u"code 3"_s, u"demo"_s) << true;
    }

    void filter()
    {
        QFETCH(ServerEvent, event);
        QFETCH(EventFilter, filter);
        QFETCH(bool, matches);
        QCOMPARE(filter.matches(event), matches);
    }

    void lines_data()
    {
        QTest::addColumn<ServerEvent>("event");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("json");
        using K = ServerEvent::Kind;
        QTest::newRow("state") << stateChange(ServerState::Retrying, u"exited with code 3"_s)
                               << u"2026-12-01T12:00:00.005Z  demo  warning  state  Retrying: exited with code 3"_s
                               << u"{\"kind\":\"state\",\"level\":\"warning\",\"server\":\"demo\",\"state\":\"Retrying\",\"text\":\"exited with code 3\",\"time\":\"2026-12-01T12:00:00.005Z\"}"_s;
        QTest::newRow("stderr with controls")
            << serverEvent(K::Stderr, u"stderr"_s, u"\x1b[31mred\nforged"_s)
            << u"2026-12-01T12:00:00.005Z  demo  info  stderr  \\x1b[31mred\\x0aforged"_s
            << u"{\"kind\":\"stderr\",\"level\":\"info\",\"server\":\"demo\",\"text\":\"\\u001b[31mred\\nforged\",\"time\":\"2026-12-01T12:00:00.005Z\"}"_s;
        QTest::newRow("log") << serverEvent(K::ServerLog, u"error"_s, u"disk full"_s, u"files"_s)
                             << u"2026-12-01T12:00:00.005Z  files  error  log  disk full"_s
                             << u"{\"kind\":\"log\",\"level\":\"error\",\"server\":\"files\",\"text\":\"disk full\",\"time\":\"2026-12-01T12:00:00.005Z\"}"_s;
        QTest::newRow("call") << serverEvent(K::ToolCall, u"info"_s, u"window called echo: ok (3 ms)"_s)
                              << u"2026-12-01T12:00:00.005Z  demo  info  call  window called echo: ok (3 ms)"_s
                              << u"{\"kind\":\"call\",\"level\":\"info\",\"server\":\"demo\",\"text\":\"window called echo: ok (3 ms)\",\"time\":\"2026-12-01T12:00:00.005Z\"}"_s;
    }

    void lines()
    {
        QFETCH(ServerEvent, event);
        QFETCH(QString, line);
        QFETCH(QString, json);
        QCOMPARE(eventLogLine(event), line);
        QCOMPARE(QString::fromUtf8(eventLogJsonLine(event)), json);
    }

    void formatFollowsTheFileName_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("json");
        QTest::newRow("log") << u"/tmp/a.log"_s << false;
        QTest::newRow("txt") << u"/tmp/a.txt"_s << false;
        QTest::newRow("none") << u"/tmp/a"_s << false;
        QTest::newRow("jsonl") << u"/tmp/a.jsonl"_s << true;
        QTest::newRow("JSONL") << u"/tmp/A.JSONL"_s << true;
        QTest::newRow("ndjson") << u"/tmp/a.ndjson"_s << true;
    }

    void formatFollowsTheFileName()
    {
        QFETCH(QString, path);
        QFETCH(bool, json);
        QCOMPARE(eventLogFormatFor(path) == EventLogFormat::JsonLines, json);
    }

    void everyServerOldestFirst()
    {
        EventLog log(3);
        const QList<std::pair<QString, int>> appended{{u"b"_s, 1}, {u"a"_s, 2}, {u"b"_s, 3}, {u"a"_s, 4},
                                                      {u"a"_s, 5}, {u"a"_s, 6}, {u"a"_s, 7}};
        for (const auto &[server, second] : appended)
            log.append({Noon.addSecs(second), server, ServerEvent::Kind::Stderr, {}, QString::number(second), {}});
        QStringList texts;
        for (const ServerEvent &event : log.allEvents())
            texts.append(event.text);
        // Three events kept per server: a's first two are gone.
        QCOMPARE(texts, (QStringList{u"1"_s, u"3"_s, u"5"_s, u"6"_s, u"7"_s}));
    }

    void savesEveryLineOrSaysWhy()
    {
        QTemporaryDir dir;
        const QList<ServerEvent> events{stateChange(ServerState::Connected, u"connected"_s),
                                        serverEvent(ServerEvent::Kind::Stderr, u"stderr"_s, u"hello"_s)};
        QString error;
        const QString text = dir.filePath(u"demo.log"_s);
        QVERIFY(writeFile(text, "an older export, longer than the new one\n\n\n\n\n\n\n\n\n\n\n\n\n"));
        QVERIFY2(saveEventLog(text, events, EventLogFormat::Text, &error), qPrintable(error));
        QCOMPARE(QString::fromUtf8(readFile(text)), eventLogLine(events[0]) + u'\n' + eventLogLine(events[1]) + u'\n');

        const QString json = dir.filePath(u"demo.jsonl"_s);
        QVERIFY2(saveEventLog(json, events, EventLogFormat::JsonLines, &error), qPrintable(error));
        const QList<QByteArray> jsonLines = readFile(json).split('\n');
        QCOMPARE(jsonLines.size(), 3);
        QCOMPARE(QJsonDocument::fromJson(jsonLines[1]).object().value(u"text").toString(), u"hello"_s);

        const QString nowhere = dir.filePath(u"missing/folder/demo.log"_s);
        QVERIFY(!saveEventLog(nowhere, events, EventLogFormat::Text, &error));
        QVERIFY2(error.startsWith(u"cannot write the log to "_s + nowhere + u": "_s), qPrintable(error));
        QVERIFY2(error.endsWith(u"choose a file in a folder you can write to"_s), qPrintable(error));
    }

    void toolCall_data()
    {
        QTest::addColumn<ToolCallReply>("reply");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("level");
        ToolCallReply toolError;
        toolError.result.isError = true;
        QTest::newRow("ok") << ToolCallReply{} << u"window called echo: ok (12 ms)"_s << u"info"_s;
        QTest::newRow("tool error") << toolError << u"window called echo: tool error (12 ms)"_s << u"warning"_s;
        QTest::newRow("failed") << ToolCallReply::failure(JsonRpc::InternalError, u"server went away"_s)
                                << u"window called echo: failed: server went away (12 ms)"_s << u"warning"_s;
        QTest::newRow("cancelled") << ToolCallReply::failure(JsonRpc::RequestCancelled, u"cancelled by you"_s)
                                   << u"window called echo: cancelled by you (12 ms)"_s << u"warning"_s;
    }

    void toolCall()
    {
        QFETCH(ToolCallReply, reply);
        QFETCH(QString, text);
        QFETCH(QString, level);
        const ServerEvent call = toolCallEvent(u"demo"_s, u"window"_s, u"echo"_s, reply, std::chrono::milliseconds(12));
        QCOMPARE(call.server, u"demo"_s);
        QCOMPARE(call.kind, ServerEvent::Kind::ToolCall);
        QCOMPARE(call.text, text);
        QCOMPARE(call.level, level);
    }
};

QTEST_GUILESS_MAIN(TestEventLogText)
#include "tst_eventlogtext.moc"
