// The window shows the gateway it serves: the indicator in the status bar, the Gateway window
// with its switch to serve HTTP (saved to the config, served at once, a port in use said and
// nothing changed), the address, the token (hidden, copied, rotated), the hosts connected now
// with the name and version from their initialize (or why there are none), and the calls through
// the gateway by server; a host's tool call shows in that server's Log and Details. A real host
// (the TypeScript SDK client) connects over HTTP to a window run as the tether program runs it, or
// through tetherctl serve relaying to the window's socket (listed as such, with no HTTP session).
// The keyboard reaches and names every control; Esc and Ctrl+W close the window.
#include "emptyhint.h"
#include "gatewaytext.h"
#include "gatewayview.h"
#include "mainwindow.h"

#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/gatewayfixtures.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/rawhttpclient.h"
#include "support/sdkhost.h"
#include "support/stopallandwait.h"
#include "support/tabwalk.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QScopeGuard>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QToolButton>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

Q_DECLARE_METATYPE(Tether::GatewayServing)

namespace {

// A config with the demo server in a folder of its own, the gateway as given, and the window run
// on it as the tether program runs it.
struct WindowFixture
{
    explicit WindowFixture(const QJsonObject &gateway)
        : path(writeServersFile(dir, configText({{u"demo"_s, demoEntry()}}, gateway)))
    {
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        QObject::connect(&store, &ConfigStore::documentChanged, &service, [this](const ConfigDocument &document) {
            service.applyConfig(document.gateway, store.savePath());
        });
        window.setGateway(&service);
        store.load();
    }
    ~WindowFixture()
    {
        if (!stopAllAndWait(manager))
            qWarning("the demo server did not stop");
    }

    QString tokenFile() const { return dir.filePath(u"gateway-token"_s); }
    QToolButton *indicator() { return namedChild<QToolButton>(window, u"gatewayIndicator"_s); }
    // The Gateway window as a click on the indicator shows it; null when it does not.
    GatewayView *clickIndicator()
    {
        indicator()->click();
        auto *view = window.findChild<GatewayView *>();
        return view && view->isVisible() ? view : nullptr;
    }
    GatewayView *openView()
    {
        window.showGateway();
        return window.findChild<GatewayView *>();
    }

    QTemporaryDir dir;
    QString path;
    ServerManager manager;
    ConfigStore store{{path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s)};
    GatewayService service{manager};
    MainWindow window{manager, store};
};

QJsonObject httpGateway(quint16 port)
{
    return {{u"http"_s, QJsonObject{{u"enabled"_s, true}, {u"port"_s, port}}}};
}

GatewayServing serving(GatewayServing::State state, int hosts = 0, const QString &error = {})
{
    GatewayServing serving;
    serving.state = state;
    serving.url = u"http://127.0.0.1:27413/mcp"_s;
    serving.port = 27413;
    serving.error = error;
    serving.status.hosts.resize(hosts);
    return serving;
}

int statusOf(RawHttpClient &client, const QByteArray &token)
{
    client.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nAuthorization: Bearer " + token
                + "\r\nContent-Length: 2\r\n\r\n{}");
    const std::optional<RawResponse> response = client.nextResponse();
    return response ? response->status : -1;
}

QString cell(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *item = table->item(row, column);
    return item ? item->text() : QString();
}

} // namespace

class TestGatewayView final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_runtime;

private slots:
    void initTestCase()
    {
        // The window remembers its geometry in QSettings, and the gateway writes its instance
        // record: never in the user's own files.
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
    }

    void indicatorText_data()
    {
        QTest::addColumn<GatewayServing>("serving");
        QTest::addColumn<QString>("text");
        using State = GatewayServing::State;
        QTest::newRow("off") << serving(State::Off) << u"Gateway off"_s;
        QTest::newRow("relaying") << serving(State::Relaying, 1) << u"Gateway: tetherctl serve · 1 host"_s;
        QTest::newRow("no host") << serving(State::Serving) << u"Gateway: http://127.0.0.1:27413/mcp · no hosts"_s;
        QTest::newRow("one host") << serving(State::Serving, 1) << u"Gateway: http://127.0.0.1:27413/mcp · 1 host"_s;
        QTest::newRow("two hosts") << serving(State::Serving, 2) << u"Gateway: http://127.0.0.1:27413/mcp · 2 hosts"_s;
        QTest::newRow("port in use")
            << serving(State::NotServed, 0,
                       u"Cannot listen on 127.0.0.1 port 27413: The bound address is already in use; is another "
                       "Tether serving the gateway? Stop it, or set gateway.http.port to a free port"_s)
            << u"Gateway not served: port 27413 in use"_s;
        QTest::newRow("not an address")
            << serving(State::NotServed, 0,
                       u"gateway.http.host = \"nowhere\" is not an IP address; write one such as \"127.0.0.1\""_s)
            << u"Gateway not served: gateway.http.host = \"nowhere\" is not an IP address"_s;
        QTest::newRow("long reason cut short")
            << serving(State::NotServed, 0,
                       u"The gateway token /home/ada/.config/tether/gateway-token can be read by others (mode 644), "
                       "so anyone could call your tools: run chmod 600"_s)
            << u"Gateway not served: the gateway token /home/ada/.config/tether/gateway-token ca…"_s;
    }

    void indicatorText()
    {
        QFETCH(GatewayServing, serving);
        QFETCH(QString, text);
        QCOMPARE(gatewayIndicatorText(serving), text);
    }

    void connectedSince()
    {
        const QDateTime now = QDateTime::currentDateTime();
        const QDateTime since = now.addSecs(-125);
        QCOMPARE(connectedSinceText(since, now), since.toString(u"HH:mm:ss"_s) + u" (2 min 5 s ago)"_s);
        QCOMPARE(connectedSinceText(now.addMSecs(-400), now), now.addMSecs(-400).toString(u"HH:mm:ss"_s) + u" (just now)"_s);
        const QDateTime yesterday = now.addSecs(-24 * 3600);
        QCOMPARE(connectedSinceText(yesterday, now), yesterday.toString(u"yyyy-MM-dd HH:mm:ss"_s) + u" (24 h ago)"_s);
    }

    void withoutHttpClientsOfTetherctlServeStillUseTheWindow()
    {
        WindowFixture fixture({});
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"demo"_s)->state == ServerState::Connected, 15000);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: tetherctl serve · no hosts"_s);
        GatewayView *view = fixture.clickIndicator();
        QVERIFY(view);
        const QString state = namedChild<QLabel>(*view, u"state"_s)->text();
        QVERIFY2(state.startsWith(u"Serving 12 tools to no hosts through tetherctl serve"_s), qPrintable(state));
        QVERIFY2(state.contains(u"Turn on Serve over HTTP"_s) && !state.contains(u"\"enabled\""_s), qPrintable(state));
        QVERIFY(!namedChild<QCheckBox>(*view, u"serveHttp"_s)->isChecked());
        QVERIFY(namedChild<QLineEdit>(*view, u"url"_s)->text().isEmpty());
        QCOMPARE(mnemonicProblems(view), QStringList());

        // A client's tetherctl serve relays to the window: no port, no token.
        SdkHost relayed(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, fixture.path});
        QVERIFY2(relayed.waitForEvent(u"connected"_s), relayed.nodeStderr().constData());
        auto *hosts = namedChild<QTableWidget>(*view, u"hosts"_s);
        QTRY_COMPARE(hosts->rowCount(), 1);
        QCOMPARE(cell(hosts, 0, 2), u"stdio (relayed)"_s);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: tetherctl serve · 1 host"_s);
        relayed.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"no port needed"_s}}));
        const auto echoed = relayed.waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"no port needed"_s);
        QCOMPARE(gatewayCallsTo(fixture.service.serving().status, u"demo"_s), std::optional<quint64>(1));
        QVERIFY(!QFile::exists(fixture.tokenFile())); // nothing served over HTTP, no token made
        relayed.send({{u"op"_s, u"close"_s}});
        QVERIFY(relayed.waitForEvent(u"closed"_s, {}, 15000));
        QTRY_COMPARE(hosts->rowCount(), 0);
        // Snapshots are published once per burst of changes.
        QSignalSpy published(&fixture.service, &GatewayService::changed);
        for (int i = 0; i < 3; ++i)
            fixture.service.applyConfig(fixture.store.document().gateway, fixture.path);
        QVERIFY(published.wait());
        QCOMPARE(published.count(), 1);
    }

    void offSaysWhyAndHowToServe()
    {
        // A runtime folder others may enter is no place for the relay socket.
        QTemporaryDir open;
        QVERIFY(QDir().mkpath(open.filePath(u"tether"_s)));
        QCOMPARE(::chmod(QFile::encodeName(open.filePath(u"tether"_s)).constData(), 0755), 0);
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(open.path()));
        const auto restore = qScopeGuard([this] { qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path())); });
        WindowFixture fixture({});
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway off"_s);
        GatewayView *view = fixture.clickIndicator();
        QVERIFY(view);
        const QString hint = namedChild<QLabel>(*view, u"state"_s)->text();
        QVERIFY2(hint.startsWith(u"The gateway is off: "_s + open.filePath(u"tether"_s)), qPrintable(hint));
        QVERIFY2(hint.contains(u"Turn on Serve over HTTP"_s), qPrintable(hint));
        QVERIFY(namedChild<QCheckBox>(*view, u"serveHttp"_s)->isEnabled());
        QCOMPARE(mnemonicProblems(view), QStringList());
        QVERIFY(!QFile::exists(fixture.tokenFile()));
    }

    void theSwitchServesHttpAtOnceAndSavesIt()
    {
        WindowFixture fixture({});
        QTRY_COMPARE(fixture.service.serving().state, GatewayServing::State::Relaying);
        GatewayView *view = fixture.openView();
        auto *serveHttp = namedChild<QCheckBox>(*view, u"serveHttp"_s);
        auto *port = namedChild<QSpinBox>(*view, u"httpPort"_s);
        auto *url = namedChild<QLineEdit>(*view, u"url"_s);
        auto *hosts = namedChild<QTableWidget>(*view, u"hosts"_s);
        QVERIFY(!serveHttp->isChecked());
        QCOMPARE(port->value(), int(GatewayHttpConfig::DefaultPort));
        QCOMPARE(port->minimum(), 1); // as the config takes it: no "any free port"
        QVERIFY2(emptyHintShown(hosts).startsWith(u"No AI client is connected. Use File ▸ Connect a client…"_s),
                 qPrintable(emptyHintShown(hosts)));

        const quint16 free = freeLoopbackPort();
        port->setValue(free);
        serveHttp->click();
        // Served at once by this process, no restart.
        const QString served = u"http://127.0.0.1:%1/mcp"_s.arg(free);
        QCOMPARE(fixture.service.serving().state, GatewayServing::State::Serving);
        QVERIFY(serveHttp->isChecked());
        QCOMPARE(url->text(), served);
        QVERIFY(!port->isEnabled());
        QVERIFY(!namedChild<QLabel>(*view, u"problem"_s)->isVisible());
        namedChild<QPushButton>(*view, u"copyUrl"_s)->click();
        QCOMPARE(QApplication::clipboard()->text(), served);
        // Saved, so that the next start serves it too.
        const auto httpInFile = [&fixture] {
            return QJsonDocument::fromJson(readFile(fixture.path)).object().value(u"gateway"_s).toObject().value(u"http"_s).toObject();
        };
        QCOMPARE(httpInFile(), (QJsonObject{{u"enabled"_s, true}, {u"port"_s, int(free)}}));
        QCOMPARE(fixture.store.document().gateway.http.port, free);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: %1 · no hosts"_s.arg(served));

        // A host connects: listed, and the table no longer says why it is empty.
        SdkHost host(u"--http"_s, {served, QString::fromLatin1(readFile(fixture.tokenFile()).trimmed())});
        QVERIFY2(host.waitForEvent(u"connected"_s), host.nodeStderr().constData());
        QTRY_COMPARE(hosts->rowCount(), 1);
        QCOMPARE(emptyHintShown(hosts), QString());

        // Off: saved, its session ends, and nothing listens on the port any more.
        serveHttp->click();
        QCOMPARE(fixture.service.serving().state, GatewayServing::State::Relaying);
        QVERIFY(!serveHttp->isChecked());
        QVERIFY(url->text().isEmpty());
        QVERIFY(port->isEnabled());
        QCOMPARE(httpInFile(), (QJsonObject{{u"enabled"_s, false}, {u"port"_s, int(free)}}));
        QTRY_COMPARE(hosts->rowCount(), 0);
        QVERIFY(!emptyHintShown(hosts).isEmpty());
        QTcpSocket probe;
        QSignalSpy failed(&probe, &QTcpSocket::errorOccurred);
        probe.connectToHost(QHostAddress::LocalHost, free);
        QVERIFY(failed.wait());
        QCOMPARE(probe.error(), QAbstractSocket::ConnectionRefusedError);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: tetherctl serve · no hosts"_s);
    }

    void aPortInUseIsSaidAndNothingChanges()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        WindowFixture fixture({});
        QTRY_COMPARE(fixture.service.serving().state, GatewayServing::State::Relaying);
        const QByteArray before = readFile(fixture.path);
        GatewayView *view = fixture.openView();
        auto *serveHttp = namedChild<QCheckBox>(*view, u"serveHttp"_s);
        auto *port = namedChild<QSpinBox>(*view, u"httpPort"_s);
        auto *problem = namedChild<QLabel>(*view, u"problem"_s);
        port->setValue(taken.serverPort());
        serveHttp->click();
        QVERIFY(problem->isVisible());
        QCOMPARE(problem->text(), u"Not served over HTTP: Port %1 is in use by another program: choose another port."_s
                                      .arg(taken.serverPort()));
        QVERIFY(problem->wordWrap());
        // Nothing half-on: not served, not saved, the switch off, the port there to change.
        QVERIFY(!serveHttp->isChecked());
        QCOMPARE(fixture.service.serving().state, GatewayServing::State::Relaying);
        QCOMPARE(readFile(fixture.path), before);
        QVERIFY(!fixture.store.document().gateway.http.enabled);
        QVERIFY(port->isEnabled());

        // Another port: served, and the message goes.
        port->setValue(freeLoopbackPort());
        serveHttp->click();
        QCOMPARE(fixture.service.serving().state, GatewayServing::State::Serving);
        QVERIFY(!problem->isVisible());
        QVERIFY(fixture.store.document().gateway.http.enabled);
    }

    void theKeyboardReachesEveryControlAndEscOrCtrlWCloses()
    {
        WindowFixture fixture(httpGateway(freeLoopbackPort()));
        QTRY_COMPARE(fixture.service.serving().state, GatewayServing::State::Serving);
        GatewayView *view = fixture.openView();
        const QStringList problems = keyboardProblems(view);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u"; "_s)));
        QCOMPARE(mnemonicProblems(view), QStringList());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QVERIFY(!view->isVisible());
        fixture.window.showGateway();
        QVERIFY(QTest::qWaitForWindowActive(view));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W, Qt::ControlModifier);
        QVERIFY(!view->isVisible());
        // QTest's release of Ctrl still says Ctrl is held, which a later selectRow would take for Ctrl+click.
        QTest::keyRelease(&fixture.window, Qt::Key_Control);
        QCOMPARE(QGuiApplication::keyboardModifiers(), Qt::NoModifier);
    }

    void aHostIsListedAndItsCallsCountedAndLogged()
    {
        WindowFixture fixture(httpGateway(freeLoopbackPort()));
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"demo"_s)->state == ServerState::Connected, 15000);
        GatewayView *view = fixture.openView();
        QVERIFY(view);
        const GatewayServing served = fixture.service.serving();
        QCOMPARE(served.state, GatewayServing::State::Serving);
        QCOMPARE(namedChild<QLineEdit>(*view, u"url"_s)->text(), served.url);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: %1 · no hosts"_s.arg(served.url));
        namedChild<QPushButton>(*view, u"copyUrl"_s)->click();
        QCOMPARE(QApplication::clipboard()->text(), served.url);

        SdkHost host(u"--http"_s, {served.url, QString::fromLatin1(readFile(fixture.tokenFile()).trimmed())});
        QVERIFY2(host.waitForEvent(u"connected"_s), host.nodeStderr().constData());
        auto *hosts = namedChild<QTableWidget>(*view, u"hosts"_s);
        QTRY_COMPARE(hosts->rowCount(), 1);
        QTRY_COMPARE(cell(hosts, 0, 0), u"tether-test-host"_s);
        QCOMPARE(cell(hosts, 0, 1), u"1.0.0"_s);
        QCOMPARE(cell(hosts, 0, 2), u"http"_s);
        QCOMPARE(cell(hosts, 0, 4), u"0"_s);
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: %1 · 1 host"_s.arg(served.url));

        // A call through the gateway: counted for its server, in the view and the Details, and in its Log.
        fixture.window.selectServer(u"demo"_s);
        host.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"from a host"_s}}));
        const auto echoed = host.waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"from a host"_s);
        auto *calls = namedChild<QTableWidget>(*view, u"callsByServer"_s);
        QTRY_COMPARE(calls->rowCount(), 1);
        QCOMPARE(cell(calls, 0, 0), u"demo"_s);
        QCOMPARE(cell(calls, 0, 1), u"1"_s);
        auto *details = namedChild<QPlainTextEdit>(fixture.window, u"details"_s);
        QTRY_VERIFY2(details->toPlainText().contains(u"Tool calls through the gateway: 1"_s),
                     qPrintable(details->toPlainText()));
        const QString log = namedChild<QWidget>(fixture.window, u"log"_s)->findChild<QPlainTextEdit *>()->toPlainText();
        QVERIFY2(log.contains(QRegularExpression(u"\\bcall +tether-test-host 1\\.0\\.0 called demo__echo: ok"_s)), qPrintable(log));
        // Kept in the server's event log, which the Log tab shows again whenever the server is selected.
        const QList<ServerEvent> events = fixture.manager.eventLog().events(u"demo"_s);
        QVERIFY(std::any_of(events.cbegin(), events.cend(), [](const ServerEvent &event) {
            return event.kind == ServerEvent::Kind::ToolCall && event.text.startsWith(u"tether-test-host 1.0.0 called"_s);
        }));

        host.send({{u"op"_s, u"terminate"_s}});
        QVERIFY(host.waitForEvent(u"terminated"_s));
        QTRY_COMPARE(hosts->rowCount(), 0);
    }

    void theTokenIsHiddenCopiedAndRotated()
    {
        WindowFixture fixture(httpGateway(freeLoopbackPort()));
        QTRY_COMPARE(fixture.service.serving().state, GatewayServing::State::Serving);
        const QByteArray oldToken = readFile(fixture.tokenFile()).trimmed();
        GatewayView *view = fixture.openView();
        auto *token = namedChild<QLineEdit>(*view, u"token"_s);
        QCOMPARE(token->echoMode(), QLineEdit::Password);
        QCOMPARE(token->text(), QString::fromLatin1(oldToken));
        namedChild<QPushButton>(*view, u"showToken"_s)->click();
        QCOMPARE(token->echoMode(), QLineEdit::Normal);
        namedChild<QPushButton>(*view, u"copyToken"_s)->click();
        QCOMPARE(QApplication::clipboard()->text(), QString::fromLatin1(oldToken));
        QVERIFY(namedChild<QLabel>(*view, u"tokenFile"_s)->text().contains(fixture.tokenFile()));

        const QString url = fixture.service.serving().url;
        SdkHost host(u"--http"_s, {url, QString::fromLatin1(oldToken)});
        QVERIFY2(host.waitForEvent(u"connected"_s), host.nodeStderr().constData());
        // A client's tetherctl serve relays to the window over its socket, with no token.
        SdkHost bridged(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, fixture.path});
        QVERIFY2(bridged.waitForEvent(u"connected"_s), bridged.nodeStderr().constData());
        QTRY_COMPARE(namedChild<QTableWidget>(*view, u"hosts"_s)->rowCount(), 2);

        // Rotate, confirmed in its question.
        bool asked = false;
        QTimer::singleShot(0, this, [&] {
            auto *question = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            asked = question && question->text().contains(u"must be connected again"_s);
            for (QAbstractButton *button : question ? question->buttons() : QList<QAbstractButton *>()) {
                if (button->text() == u"Rotate"_s)
                    button->click();
            }
        });
        namedChild<QPushButton>(*view, u"rotateToken"_s)->click();
        QVERIFY(asked);
        const QByteArray newToken = readFile(fixture.tokenFile()).trimmed();
        QVERIFY(newToken.size() == oldToken.size() && newToken != oldToken);
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(fixture.tokenFile()).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QCOMPARE(token->text(), QString::fromLatin1(newToken));
        auto *rotated = namedChild<QLabel>(*view, u"rotated"_s);
        QVERIFY(rotated->isVisible());
        QVERIFY(rotated->text().contains(u"tetherctl connect"_s));
        // The hosts connected with the old token are let go (the log says so), and the old token is refused.
        RawHttpClient raw;
        QVERIFY(raw.connectTo(QUrl(url).port()));
        QCOMPARE(statusOf(raw, oldToken), 401);
        // The relayed host never used the token: its session goes on, and its calls reach the
        // window's servers.
        QTRY_COMPARE(namedChild<QTableWidget>(*view, u"hosts"_s)->rowCount(), 1);
        QCOMPARE(cell(namedChild<QTableWidget>(*view, u"hosts"_s), 0, 2), u"stdio (relayed)"_s);
        bridged.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"after the rotation"_s}}));
        const auto echoed = bridged.waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"after the rotation"_s);
        QCOMPARE(bridged.count(u"list_changed"_s), 0);
        QVERIFY(gatewayCallsTo(fixture.service.serving().status, u"demo"_s) == 1u);
        // The new token works: a host connects with it.
        SdkHost again(u"--http"_s, {url, QString::fromLatin1(newToken)});
        QVERIFY2(again.waitForEvent(u"connected"_s), again.nodeStderr().constData());
        QTRY_COMPARE(namedChild<QTableWidget>(*view, u"hosts"_s)->rowCount(), 2);
    }

    void aRelayedHostIsASessionOfTheGatewayOverItsSocket()
    {
        const quint16 port = freeLoopbackPort();
        WindowFixture fixture(httpGateway(port));
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"demo"_s)->state == ServerState::Connected, 15000);
        GatewayView *view = fixture.openView();
        QVERIFY(view);
        // A client's tetherctl serve, relayed to the window: listed by its client's name, over the socket.
        SdkHost relayed(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, fixture.path});
        QVERIFY2(relayed.waitForEvent(u"connected"_s), relayed.nodeStderr().constData());
        auto *hosts = namedChild<QTableWidget>(*view, u"hosts"_s);
        QTRY_COMPARE(hosts->rowCount(), 1);
        QTRY_COMPARE(cell(hosts, 0, 0), u"tether-test-host"_s);
        QCOMPARE(cell(hosts, 0, 2), u"stdio (relayed)"_s);
        relayed.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"over the socket"_s}}));
        const auto echoed = relayed.waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"over the socket"_s);
        QVERIFY(gatewayCallsTo(fixture.service.serving().status, u"demo"_s) == 1u);

        // No HTTP session was made for it: the gateway has opened one session, over the socket,
        // and the HTTP endpoint has none.
        const QList<std::pair<QString, quint64>> opened{{u"stdio (relayed)"_s, 1}};
        QCOMPARE(fixture.service.serving().status.sessionsOpened, opened);
        RawHttpClient raw;
        QVERIFY(raw.connectTo(port));
        raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + readFile(fixture.tokenFile()).trimmed()
                 + "\r\n\r\n");
        const auto health = raw.nextResponse();
        QVERIFY(health);
        QCOMPARE(QJsonDocument::fromJson(health->body).object().value(u"sessions"_s).toInt(-1), 0);

        // The client leaves: its session ends with its connection.
        relayed.send({{u"op"_s, u"close"_s}});
        QVERIFY(relayed.waitForEvent(u"closed"_s, {}, 15000));
        QTRY_COMPARE(hosts->rowCount(), 0);
    }

    void notServedSaysWhyAndServesOnceThePortIsFree()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        const quint16 port = taken.serverPort();
        WindowFixture fixture(httpGateway(port));
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway not served: port %1 in use"_s.arg(port));
        QVERIFY(fixture.indicator()->toolTip().contains(u"set gateway.http.port to a free port"_s));
        GatewayView *view = fixture.openView();
        QCOMPARE(namedChild<QLabel>(*view, u"state"_s)->text(),
                 u"Not serving over HTTP: Port %1 is in use by another program: choose another port."_s.arg(port));
        QVERIFY(namedChild<QCheckBox>(*view, u"serveHttp"_s)->isChecked());
        QVERIFY(!namedChild<QPushButton>(*view, u"rotateToken"_s)->isEnabled());
        auto *serveAgain = namedChild<QPushButton>(*view, u"serveAgain"_s);
        QVERIFY(serveAgain->isVisible());
        taken.close();
        serveAgain->click();
        QCOMPARE(namedChild<QLineEdit>(*view, u"url"_s)->text(), u"http://127.0.0.1:%1/mcp"_s.arg(port));
        QVERIFY(!serveAgain->isVisible());
        QTRY_COMPARE(fixture.indicator()->text(), u"Gateway: http://127.0.0.1:%1/mcp · no hosts"_s.arg(port));
        QCOMPARE(mnemonicProblems(view), QStringList());
    }
};

QTEST_MAIN(TestGatewayView)
#include "tst_gatewayview.moc"
