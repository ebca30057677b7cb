#pragma once

#include <QEventLoop>
#include <QTimer>

#include <chrono>

namespace Tether::Bench {

// Runs `loop` until something quits it or `timeout` has passed; false when the time ran out, so
// that a benchmark that cannot finish says so instead of waiting for ever.
inline bool execWithin(QEventLoop &loop, std::chrono::milliseconds timeout)
{
    bool timedOut = false;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, [&] {
        timedOut = true;
        loop.quit();
    });
    deadline.start(timeout);
    loop.exec();
    return !timedOut;
}

} // namespace Tether::Bench
