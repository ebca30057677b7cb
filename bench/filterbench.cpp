// Typing in the window's server filter while 40 servers crash and restart: for each key, the
// time to handle it and repaint the table (what a person waits for before the key shows), and
// the event loop's longest stall over the same time, which a key pressed then waits on too.
// Runs the window in this process on real demo servers that crash every few hundred ms.
#include "percentile.h"

#include "mainwindow.h"
#include "config/configcontext.h"
#include "config/configstore.h"
#include "manager/servermanager.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QTimer>

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Bench::percentile;

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir home;
    // A home of its own: no saved window geometry, no log in the user's folder.
    qputenv("XDG_CONFIG_HOME", home.filePath(u"config"_s).toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath(u"data"_s).toUtf8());
    QApplication app(argc, argv);
    spdlog::set_level(spdlog::level::err); // every crash is logged: not the figures' business
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Types in the window's server filter while many servers crash and restart."_s);
    parser.addHelpOption();
    const QCommandLineOption serversOption(u"servers"_s, u"How many crash-looping servers (default 40)."_s, u"n"_s, u"40"_s);
    const QCommandLineOption keysOption(u"keys"_s, u"How many keys to type (default 300)."_s, u"n"_s, u"300"_s);
    parser.addOptions({serversOption, keysOption});
    parser.process(app);
    const int count = std::max(1, parser.value(serversOption).toInt());
    const int keys = std::max(1, parser.value(keysOption).toInt());

    // Each crashes 300 ms after it connects and is restarted at once, for as long as the bench runs.
    QJsonObject servers;
    for (int i = 0; i < count; ++i) {
        servers.insert(u"flaky-%1"_s.arg(i, 2, 10, QChar(u'0')),
                       QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                                   {u"args"_s, QJsonArray{u"--crash-after-ms"_s, u"300"_s}},
                                   {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 100}, {u"maxDelayMs"_s, 200},
                                                                {u"maxAttempts"_s, 1000}}}});
    }
    const QString path = home.filePath(u"servers.json"_s);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson()) < 0)
        return 1;
    file.close();

    ServerManager manager;
    ConfigStore store({path, false}, {systemEnvironment(), {}}, home.filePath(u"user.json"_s));
    QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
    MainWindow window(manager, store);
    store.load();
    window.resize(1100, 700);
    window.show();
    auto *filter = window.findChild<QLineEdit *>(u"serverFilter"_s);

    // The event loop's stalls: how late a 5 ms timer fires.
    QElapsedTimer sinceTick;
    std::vector<double> stalls;
    QTimer probe;
    probe.setInterval(5);
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (sinceTick.isValid())
            stalls.push_back(std::max(0.0, double(sinceTick.nsecsElapsed()) / 1e6 - 5.0));
        sinceTick.restart();
    });

    // Every connection lost: the window's busiest moments.
    quint64 crashes = 0;
    QObject::connect(&manager, &ServerSource::stateChanged, [&crashes](const ServerStatus &status) {
        crashes += status.state == ServerState::Reconnecting || status.state == ServerState::Retrying;
    });
    // Let them crash for a while first, so that the window is busy with restarts when typing starts.
    QTest::qWait(3000);
    const quint64 crashesBefore = crashes;
    probe.start();
    const QString words = u"flaky-1 retrying failed connected 0 flaky-3 "_s;
    std::vector<double> perKey;
    QElapsedTimer clock;
    for (int key = 0; key < keys; ++key) {
        // A new word after each space: clear and type again.
        const QChar letter = words.at(key % words.size());
        clock.start();
        if (letter == u' ')
            filter->clear();
        else
            QTest::keyClick(filter, letter.toLatin1());
        window.table()->viewport()->repaint();
        perKey.push_back(double(clock.nsecsElapsed()) / 1e6);
        // About a keystroke every 40 ms, as a fast typist; the crashes go on meanwhile.
        QTest::qWait(40);
    }
    probe.stop();
    const quint64 crashesWhileTyping = crashes - crashesBefore;

    manager.stopAll();
    const bool stopped = QTest::qWaitFor([&] {
        const QList<ServerStatus> statuses = manager.statuses();
        return std::all_of(statuses.cbegin(), statuses.cend(),
                           [](const ServerStatus &status) { return status.state == ServerState::Stopped; });
    }, 15000);
    QTextStream out(stdout);
    out << count << " servers crashing 300 ms after each start: " << crashesWhileTyping << " crashes while " << keys
        << " keys were typed in the filter" << Qt::endl
        << "event-loop stall while typing: p50 " << QString::number(percentile(stalls, 0.5), 'f', 2) << " ms, p99 "
        << QString::number(percentile(stalls, 0.99), 'f', 2) << " ms, max " << QString::number(percentile(stalls, 1.0), 'f', 2)
        << " ms" << Qt::endl
        << "per key, handled and the table repainted: p50 " << QString::number(percentile(perKey, 0.5), 'f', 2) << " ms, p99 "
        << QString::number(percentile(perKey, 0.99), 'f', 2) << " ms, max " << QString::number(percentile(perKey, 1.0), 'f', 2)
        << " ms   target < 50 ms" << Qt::endl;
    return stopped ? 0 : 1;
}
