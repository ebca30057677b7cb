#include "mainwindow.h"
#include "quitchoice.h"
#include "singleinstance.h"
#include "trayicon.h"

#include "auth/signinservice.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "control/configinstance.h"
#include "control/remoteservers.h"
#include "keyring/tokenstore.h"
#include "tetherusage.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QStatusBar>
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

// The servers of the window's config go on without it: a headless Tether claims the config, once
// this process has let it go, and starts them.
void handOver(ConfigInstance &instance, const ConfigSource &source)
{
    instance.releaseClaim();
    QStringList arguments{u"daemon"_s};
    if (!source.embedded)
        arguments << u"--config"_s << source.path;
    const QString tetherctl = QApplication::applicationDirPath() + u"/tetherctl"_s;
    if (QProcess::startDetached(tetherctl, arguments))
        spdlog::info("the servers of {} go on in tetherctl daemon", instance.configPath());
    else
        spdlog::error("could not start {} daemon: the servers of {} stay stopped", tetherctl, instance.configPath());
}

// The window attached to the Tether that already runs its config (tetherctl daemon, serve --http):
// its table, details, logs and actions are that Tether's, and closing the window leaves its servers
// running. When that Tether goes, the window offers to run the servers itself.
int runAttached(InstanceListener &listener, const ConfigSource &source, std::unique_ptr<ControlClient> instance,
                const QElapsedTimer &sinceStart)
{
    ConfigStore config(source, programConfigContext());
    RemoteServers servers(std::move(instance), config);
    const Control::InstanceInfo running = servers.instance();
    spdlog::info("attached to the Tether (pid {}, {}) that runs {}", running.pid, running.kind, running.configPath);
    MainWindow window(servers, config);
    QObject::connect(&listener, &InstanceListener::activationRequested, &window, &MainWindow::bringToFront);
    window.statusBar()->showMessage(
        QObject::tr("Attached to the Tether (pid %1, %2) that runs this config: closing this window leaves its servers running")
            .arg(running.pid)
            .arg(running.kind));
    const auto quit = [&listener] {
        listener.stopListening();
        QApplication::quit();
    };
    QObject::connect(&window, &MainWindow::quitRequested, qApp, quit);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, qApp, quit);
    std::unique_ptr<TrayIcon> tray;
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        tray = std::make_unique<TrayIcon>(servers, &window);
        QObject::connect(tray.get(), &TrayIcon::quitRequested, qApp, quit);
        tray->show();
    } else {
        QObject::connect(qApp, &QApplication::lastWindowClosed, qApp, quit);
    }
    QObject::connect(&servers, &RemoteServers::ready, &window, [&] {
        spdlog::info("attached: showing the {} servers of the Tether (pid {})", servers.serverNames().size(), running.pid);
    });
    QObject::connect(&servers, &RemoteServers::lost, &window, [&](const QString &why) {
        spdlog::warn("attached: {}", why);
        window.statusBar()->showMessage(QObject::tr("%1; what this window shows is its last word").arg(why));
        const auto answer = QMessageBox::question(
            &window, QObject::tr("Tether"),
            QObject::tr("%1.\n\nRun the servers of this config in this window from now on?").arg(why),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes)
            return;
        // Tether again, now with no Tether running the config: it becomes the instance.
        listener.stopListening();
        if (!QProcess::startDetached(QApplication::applicationFilePath(), QApplication::arguments().mid(1)))
            spdlog::error("could not start Tether again to take the servers over");
        QApplication::quit();
    });
    new FirstPaintReporter(&window, u"window"_s, sinceStart);
    window.show();
    QTimer::singleShot(0, &config, [&] {
        config.load();
        servers.start();
    });
    return QApplication::exec();
}

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
    if (!parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << "tether: unexpected argument '" << parser.positionalArguments().first()
                            << "': tether takes options only, such as --config FILE (see tether --help)" << Qt::endl;
        return 1;
    }
    configureAppLogging();

    // One Tether per user: a second launch hands over to the running one and touches no server.
    const ConfigSource source = locateConfig(parser.value(u"config"_s));
    const QString requestedConfig = parser.isSet(u"config"_s) ? QFileInfo(parser.value(u"config"_s)).absoluteFilePath() : QString();
    InstanceListener listener(instanceSocketPath(),
                              [&source](const QString &requested) { return answerSecondLaunch(source, requested); });
    std::optional<LaunchAnswer> running;
    QString instanceError;
    if (!listener.claim(requestedConfig, &running, &instanceError)) {
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

    // A Tether that runs this config already (tetherctl daemon, serve --http): the window attaches
    // to it and starts no server. One that cannot be used is refused, and nothing starts twice.
    Attachment attachment = attachToInstance(configSavePath(source), u"tether window"_s);
    if (attachment.client)
        return runAttached(listener, source, std::move(attachment.client), sinceStart);
    if (!attachment.why.isEmpty()) {
        QTextStream(stderr) << "tether: " << attachment.why << Qt::endl;
        return 1;
    }

    // The window is the instance of its config: tetherctl attaches to it rather than running the
    // servers a second time. Claimed before any server starts.
    ConfigInstance instance(source, {u"window"_s, systemSignInService});
    qint64 claimHolder = 0;
    QString claimError;
    if (!instance.claim(&claimHolder, &claimError) && claimHolder > 0) {
        // Another Tether claimed the config since it was looked for (both started at once): attach to it.
        attachment = attachToInstance(configSavePath(source), u"tether window"_s);
        if (attachment.client)
            return runAttached(listener, source, std::move(attachment.client), sinceStart);
        QTextStream(stderr) << "tether: " << attachment.why << Qt::endl;
        return 1;
    }
    if (!claimError.isEmpty())
        spdlog::warn("{}; tetherctl will not find this window's servers", claimError);
    ServerManager &manager = instance.manager();
    ConfigStore &config = instance.config();
    MainWindow window(manager, config);
    QObject::connect(&listener, &InstanceListener::activationRequested, &window, &MainWindow::bringToFront);
    window.setGateway(&instance.gateway());
    // Quitting stops every server and waits (bounded) until their processes have exited; then, if
    // the user keeps them running, a headless Tether takes the config over.
    bool quitting = false;
    const auto quitWith = [&](QuitChoice choice) {
        if (quitting || choice == QuitChoice::Cancel)
            return;
        quitting = true;
        listener.stopListening();
        // Tool call dialogs too: nothing stays on screen while the servers stop.
        for (QWidget *widget : QApplication::topLevelWidgets())
            widget->hide();
        QObject::connect(&instance, &ConfigInstance::stopped, &app, [&, choice] {
            if (choice == QuitChoice::KeepRunning)
                handOver(instance, source);
            QApplication::quit();
        });
        instance.stop();
        QTimer::singleShot(10000, &app, &QApplication::quit);
    };
    const auto quit = [&] {
        if (quitting)
            return;
        const QuitChoice choice = askQuitChoice(&window);
        // Not quitting after all: the window stays (with no tray, it was closed to ask).
        if (choice == QuitChoice::Cancel)
            window.show();
        quitWith(choice);
    };
    QObject::connect(&window, &MainWindow::quitRequested, &app, quit);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &app, [&] { quitWith(savedQuitChoice()); });
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
        instance.start();
        new FirstPaintReporter(window.table()->viewport(), u"server table with %1 servers"_s.arg(manager.serverNames().size()),
                               sinceStart);
    });
    return QApplication::exec();
}
