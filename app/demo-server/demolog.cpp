#include "demolog.h"

#include <QByteArray>
#include <QString>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace Demo {

namespace {
int logCopyFd = -1;
} // namespace

bool writeFully(int fd, QByteArrayView data)
{
    const char *cursor = data.data();
    qsizetype remaining = data.size();
    while (remaining > 0) {
        const ssize_t written = ::write(fd, cursor, size_t(remaining));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        cursor += written;
        remaining -= written;
    }
    return true;
}

static QString &logLineSuffix()
{
    static QString suffix;
    return suffix;
}

void setLogLineSuffix(const QString &suffix)
{
    logLineSuffix() = suffix;
}

void logLine(const QString &text)
{
    const QByteArray line = "demo: " + text.toUtf8() + logLineSuffix().toUtf8() + '\n';
    writeFully(STDERR_FILENO, line);
    if (logCopyFd >= 0)
        writeFully(logCopyFd, line);
}

bool copyLogTo(const QString &path)
{
    logCopyFd = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    return logCopyFd >= 0;
}

} // namespace Demo
