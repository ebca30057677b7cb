#include "unixsignalwatcher.h"

#include <QList>
#include <QPointer>
#include <QSocketNotifier>

#include <csignal>
#include <algorithm>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace Tether {

namespace {
int signalPipe[2] = {-1, -1};

void writeSignalNumber(int signalNumber)
{
    const unsigned char byte = static_cast<unsigned char>(signalNumber);
    [[maybe_unused]] const ssize_t written = ::write(signalPipe[1], &byte, 1);
}

// One reader of the pipe for all watchers: two notifiers on one pipe would steal each other's bytes.
struct Dispatcher
{
    std::unique_ptr<QSocketNotifier> notifier;
    QList<UnixSignalWatcher *> watchers;

    void dispatch()
    {
        unsigned char byte = 0;
        while (::read(signalPipe[0], &byte, 1) == 1) {
            const int signalNumber = int(byte);
            // A slot may destroy a watcher (quitting): guard each one.
            QList<QPointer<UnixSignalWatcher>> listeners;
            for (UnixSignalWatcher *watcher : std::as_const(watchers))
                if (watcher->watches(signalNumber))
                    listeners.append(watcher);
            for (const QPointer<UnixSignalWatcher> &watcher : std::as_const(listeners))
                if (watcher)
                    emit watcher->received(signalNumber);
        }
    }

    bool anyWatches(int signalNumber) const
    {
        return std::any_of(watchers.cbegin(), watchers.cend(),
                           [signalNumber](const UnixSignalWatcher *w) { return w->watches(signalNumber); });
    }
};

Dispatcher &dispatcher()
{
    static Dispatcher instance;
    return instance;
}
} // namespace

UnixSignalWatcher::UnixSignalWatcher(std::initializer_list<int> signalNumbers, QObject *parent)
    : QObject(parent)
    , m_signals(signalNumbers)
{
    if (signalPipe[0] < 0 && ::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    Dispatcher &shared = dispatcher();
    if (!shared.notifier) {
        shared.notifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
        QObject::connect(shared.notifier.get(), &QSocketNotifier::activated, shared.notifier.get(),
                         [] { dispatcher().dispatch(); });
    }
    shared.watchers.append(this);
    for (int signalNumber : std::as_const(m_signals)) {
        struct sigaction action = {};
        action.sa_handler = writeSignalNumber;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        ::sigaction(signalNumber, &action, nullptr);
    }
}

UnixSignalWatcher::~UnixSignalWatcher()
{
    Dispatcher &shared = dispatcher();
    shared.watchers.removeOne(this);
    for (int signalNumber : std::as_const(m_signals))
        if (!shared.anyWatches(signalNumber))
            ::signal(signalNumber, SIG_DFL);
    if (shared.watchers.isEmpty())
        shared.notifier.reset();
}

} // namespace Tether
