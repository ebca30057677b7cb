#pragma once

#include <QByteArrayView>
#include <QString>

// Text as Tether shows it to people: in messages, the window and the log.
namespace Tether {

// A short, single-line excerpt of raw input for error messages.
QString excerpt(QByteArrayView bytes, qsizetype maxChars = 80);

// A url as messages may show it: user info and query values become "…" unless they are
// ${env:…} references, which show as written.
QString redactedUrl(const QString &url);

// "SIGKILL", or "signal 64" for a number without a name.
QString signalName(int signalNumber);

} // namespace Tether
