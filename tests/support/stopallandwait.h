#pragma once

#include "manager/servermanager.h"

#include <QSignalSpy>
#include <QTest>

namespace Tether::Testing {

// Stops every server and waits up to `timeoutMs` for allStopped: true when it came, once.
[[nodiscard]] inline bool stopAllAndWait(ServerManager &manager, int timeoutMs = 10000)
{
    QSignalSpy stopped(&manager, &ServerManager::allStopped);
    manager.stopAll();
    return QTest::qWaitFor([&] { return !stopped.isEmpty(); }, timeoutMs) && stopped.size() == 1;
}

} // namespace Tether::Testing
