#pragma once

// promtool, which judges /metrics: extracted into build/tools/ by scripts/test.sh
// (TETHER_PROMTOOL), else from PATH.

#include <QFileInfo>
#include <QStandardPaths>
#include <QString>

namespace Tether::Testing {

// The program, or empty when there is none.
inline QString promtoolProgram()
{
    const QString extracted = QStringLiteral(TETHER_PROMTOOL);
    if (QFileInfo(extracted).isExecutable())
        return extracted;
    return QStandardPaths::findExecutable(QStringLiteral("promtool"));
}

inline QString promtoolMissing()
{
    return QStringLiteral("promtool is neither at %1 nor on PATH; scripts/test.sh extracts it there from Debian's "
                          "prometheus package (or: source scripts/setup.sh && tether_extract_promtool)")
        .arg(QStringLiteral(TETHER_PROMTOOL));
}

} // namespace Tether::Testing

// In CI (CI=true) a check that cannot run fails: a skip there would pass unseen.
#define TETHER_FIND_PROMTOOL(program)                                                                                  \
    const QString program = Tether::Testing::promtoolProgram();                                                        \
    if (program.isEmpty()) {                                                                                           \
        if (qEnvironmentVariable("CI") == QStringLiteral("true"))                                                      \
            QFAIL(qPrintable(Tether::Testing::promtoolMissing()));                                                     \
        QSKIP(qPrintable(Tether::Testing::promtoolMissing()));                                                         \
    }
