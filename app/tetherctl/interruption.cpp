#include "interruption.h"

#include "output.h"

#include "common/displaytext.h"

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

Interruption::Interruption(QObject *parent)
    : QObject(parent)
    , m_watcher({SIGINT, SIGTERM, SIGHUP})
{
    connect(&m_watcher, &UnixSignalWatcher::received, this, &Interruption::onSignal);
}

QString Interruption::reason() const
{
    return u"interrupted by %1"_s.arg(signalName(m_signalNumber));
}

std::optional<int> Interruption::exitStatus() const
{
    if (!happened())
        return std::nullopt;
    return 128 + m_signalNumber;
}

void Interruption::onSignal(int signalNumber)
{
    if (happened())
        return;
    m_signalNumber = signalNumber;
    printError(reason() + u": cancelling what is in flight and closing the servers"_s);
    emit interrupted();
}

} // namespace Tether::Ctl
