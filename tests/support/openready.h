#pragma once

#include "session/mcpclientsession.h"

#include <QSignalSpy>
#include <QTest>

namespace Tether::Testing {

// Opens the session and waits up to `timeoutMs` for its handshake: true when it became ready and
// did not fail. A failure's reason is printed, for the test's log.
[[nodiscard]] inline bool openReady(McpClientSession &session, int timeoutMs)
{
    QSignalSpy ready(&session, &McpClientSession::ready);
    QSignalSpy failed(&session, &McpClientSession::failed);
    session.open();
    if (!QTest::qWaitFor([&] { return ready.size() + failed.size() > 0; }, timeoutMs))
        return false;
    if (!failed.isEmpty())
        qWarning("%s", qPrintable(failed.first().first().toString()));
    return ready.size() == 1 && failed.isEmpty();
}

} // namespace Tether::Testing
