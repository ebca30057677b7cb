#include "mainwindow.h"
#include "trayicon.h"

#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "config/configlocation.h"
#include "config/configwatcher.h"
#include "manager/servermanager.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCommandLineParser>
#include <QTimer>

#include <csignal>
#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace Tether;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"tether"_s);
    QApplication::setApplicationDisplayName(u"Tether"_s);
    QApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));
    QApplication::setQuitOnLastWindowClosed(false);

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Tether keeps your MCP servers connected.\n\n"
                                     "With no --config, Tether reads $XDG_CONFIG_HOME/tether/servers.json, and without "
                                     "that file it runs its built-in demo configuration."_s);
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

    const ConfigSource source = locateConfig(parser.value(configOption));
    ServerManager manager;
    MainWindow window(manager);
    const ConfigDocument document = loadConfig(source.path, programConfigContext());
    if (document.isValid()) {
        manager.applyConfig(document);
        if (source.embedded)
            window.setConfigProblem({});
    } else {
        window.setConfigProblem(QObject::tr("%1\nNo servers were started. Fix the file; Tether picks it up when it is saved.")
                                    .arg(document.errors.join(u'\n')));
    }
    std::unique_ptr<ConfigWatcher> watcher;
    if (!source.embedded) {
        watcher = std::make_unique<ConfigWatcher>(source.path, programConfigContext());
        QObject::connect(watcher.get(), &ConfigWatcher::reloaded, &manager, [&](const ConfigDocument &reloaded) {
            window.setConfigProblem({});
            manager.applyConfig(reloaded);
        });
        QObject::connect(watcher.get(), &ConfigWatcher::reloadFailed, &window, [&](const QStringList &errors) {
            window.setConfigProblem(QObject::tr("%1\nThe servers keep running as they were.").arg(errors.join(u'\n')));
        });
    }

    // Quitting stops every server and waits (bounded) until their processes have exited.
    bool quitting = false;
    const auto quit = [&] {
        if (quitting)
            return;
        quitting = true;
        window.hide();
        QObject::connect(&manager, &ServerManager::allStopped, &app, &QApplication::quit);
        manager.stopAll();
        QTimer::singleShot(10000, &app, &QApplication::quit);
    };
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM});
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

    window.show();
    return QApplication::exec();
}
