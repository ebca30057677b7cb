#include "mainwindow.h"
#include "trayicon.h"

#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "config/configstore.h"
#include "manager/servermanager.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTableView>
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
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"tether"_s);
    QApplication::setApplicationDisplayName(u"Tether"_s);
    QApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));
    QApplication::setQuitOnLastWindowClosed(false);

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Tether keeps your MCP servers connected.\n\n"
                                     "With no --config, Tether reads $XDG_CONFIG_HOME/tether/servers.json, and without "
                                     "that file it runs its built-in demo configuration. Changes made in the window "
                                     "(servers added, edited, removed, enabled, imported; reconnect policies) are saved "
                                     "to the config file; on the built-in demo the first change creates "
                                     "$XDG_CONFIG_HOME/tether/servers.json. Edits made to the file in a text editor are "
                                     "picked up when it is saved."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configOption(u"config"_s, u"The config file to run."_s, u"file"_s);
    parser.addOption(configOption);
    parser.process(app);
    configureAppLogging();

    // Each supervised child costs a few file descriptors.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }

    ConfigStore config(locateConfig(parser.value(configOption)), programConfigContext());
    ServerManager manager;
    MainWindow window(manager, config);
    QObject::connect(&config, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
    // Quitting stops every server and waits (bounded) until their processes have exited.
    bool quitting = false;
    const auto quit = [&] {
        if (quitting)
            return;
        quitting = true;
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
