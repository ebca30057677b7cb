#include "mainwindow.h"
#include "singleinstance.h"
#include "trayicon.h"

#include "auth/signinservice.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "config/configstore.h"
#include "control/instancecontrol.h"
#include "gateway/gatewayinstance.h"
#include "gateway/gatewayservice.h"
#include "keyring/tokenstore.h"
#include "manager/servermanager.h"
#include "tetherusage.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTableView>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// Logs, once, how long after start `widget` was first painted; tether-window-bench reads these
// lines.
class FirstPaintReporter final : public QObject
{
public:
    FirstPaintReporter(QWidget *widget, QString what, const QElapsedTimer &sinceStart)
        : QObject(widget)
        , m_what(std::move(what))
        , m_sinceStart(sinceStart)
    {
        widget->installEventFilter(this);
        widget->update();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint) {
            watched->removeEventFilter(this);
            // After this paint has been flushed to the screen.
            QTimer::singleShot(0, this, [this] { spdlog::info("{} painted {} ms after start", m_what, m_sinceStart.elapsed()); });
        }
        return false;
    }

private:
    QString m_what;
    QElapsedTimer m_sinceStart;
};

} // namespace

int main(int argc, char *argv[])
{
    QElapsedTimer sinceStart;
    sinceStart.start();
    const Usage::ProgramUsage &usage = Usage::tetherUsage();
    // --help and --version need no display: they are answered before QApplication opens one.
    if (const std::optional<int> status = Usage::answerHelpOrVersion(usage, Usage::argumentsOf(argc, argv)))
        return *status;
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"tether"_s);
    QApplication::setApplicationDisplayName(u"Tether"_s);
    QApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));
    QApplication::setDesktopFileName(u"io.github.tether.Tether"_s);
    QApplication::setQuitOnLastWindowClosed(false);

    // Qt's own options (-platform, -style) are gone from the arguments once QApplication has them.
    if (const std::optional<int> status = Usage::answerHelpOrVersion(usage, QApplication::arguments()))
        return *status;
    QCommandLineParser parser;
    parser.addOptions(Usage::commandLineOptions(usage));
    if (!parser.parse(QApplication::arguments())) {
        QTextStream(stderr) << "tether: " << parser.errorText() << " (see tether --help)" << Qt::endl;
        return 1;
    }
    configureAppLogging();

    // One Tether per user: a second launch hands over to the running one and touches no server.
    const ConfigSource source = locateConfig(parser.value(u"config"_s));
    const QString requestedConfig = parser.isSet(u"config"_s) ? QFileInfo(parser.value(u"config"_s)).absoluteFilePath() : QString();
    InstanceListener instance(instanceSocketPath(),
                              [&source](const QString &requested) { return answerSecondLaunch(source, requested); });
    std::optional<LaunchAnswer> running;
    QString instanceError;
    if (!instance.claim(requestedConfig, &running, &instanceError)) {
        QTextStream(stderr) << "tether: " << instanceError << Qt::endl;
        return 1;
    }
    if (running) {
        if (!running->activated) {
            QTextStream(stderr) << "tether: " << running->refusal << Qt::endl;
            return 1;
        }
        QTextStream(stdout) << "tether: already running; its window was brought to the front" << Qt::endl;
        return 0;
    }

    // Each supervised child costs a few file descriptors.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }

    ConfigStore config(source, programConfigContext());
    // The window is the instance of its config: tetherctl attaches to it rather than running the
    // servers a second time. Claimed before any server starts.
    qint64 claimHolder = 0;
    QString claimError;
    const std::unique_ptr<InstanceClaim> claim = InstanceClaim::claim(config.savePath(), &claimHolder, &claimError);
    if (!claim && claimHolder > 0)
        spdlog::warn("another Tether (pid {}) runs {}: tetherctl talks to that one", claimHolder, config.savePath());
    else if (!claim)
        spdlog::warn("{}", claimError);
    std::unique_ptr<SignInService> signIn; // made once the config says where tokens are kept
    ServerManager manager;
    // The gateway while the window runs: the tetherctl serve of clients relays to it, and over HTTP
    // once a document enables it; tetherctl's control requests come in on the same socket.
    InstanceControl control(manager, u"window"_s, [&config] { return config.reload(); });
    GatewayService gateway(manager);
    gateway.setLocalService(&control);
    MainWindow window(manager, config);
    QObject::connect(&instance, &InstanceListener::activationRequested, &window, &MainWindow::bringToFront);
    // Remote servers that ask sign in (OAuth); connected first, so the servers of the first
    // document already have it. Where tokens are kept is read once, at start.
    QObject::connect(&config, &ConfigStore::documentChanged, &manager, [&](const ConfigDocument &document) {
        if (signIn)
            return;
        signIn = systemSignInService(document.oauthDefaults.tokenStore);
        manager.setSignIn(signIn.get());
    });
    QObject::connect(&config, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
    QObject::connect(&config, &ConfigStore::documentChanged, &gateway, [&](const ConfigDocument &document) {
        // The built-in demo's token is kept where the user's file would be.
        gateway.applyConfig(document.gateway, config.savePath());
    });
    window.setGateway(&gateway);
    // Quitting stops every server and waits (bounded) until their processes have exited.
    bool quitting = false;
    const auto quit = [&] {
        if (quitting)
            return;
        quitting = true;
        instance.stopListening();
        gateway.close(); // the hosts' sessions end, and so does the instance record
        // Tool call dialogs too: nothing stays on screen while the servers stop.
        for (QWidget *widget : QApplication::topLevelWidgets())
            widget->hide();
        QObject::connect(&manager, &ServerManager::allStopped, &app, &QApplication::quit);
        manager.stopAll();
        QTimer::singleShot(10000, &app, &QApplication::quit);
    };
    QObject::connect(&window, &MainWindow::quitRequested, &app, quit);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &app, quit);
    // With a tray, closing the window hides it and Tether keeps supervising; without, it quits.
    std::unique_ptr<TrayIcon> tray;
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        tray = std::make_unique<TrayIcon>(manager, &window);
        QObject::connect(tray.get(), &TrayIcon::quitRequested, &app, quit);
        tray->show();
    } else {
        QObject::connect(&app, &QApplication::lastWindowClosed, &app, quit);
    }

    new FirstPaintReporter(&window, u"window"_s, sinceStart);
    window.show();
    // The servers start once the window is on screen, so it appears at once however many there are.
    QTimer::singleShot(0, &config, [&] {
        config.load();
        new FirstPaintReporter(window.table()->viewport(), u"server table with %1 servers"_s.arg(manager.serverNames().size()),
                               sinceStart);
    });
    return QApplication::exec();
}
