#pragma once

#include "config/configcontext.h"

#include <QByteArrayView>
#include <QList>
#include <QString>

// How the fuzz entries read their input. Stream entries take the first byte as the way the
// rest arrives: in pieces of 1 to 64 bytes, and with bounds small enough to be reached.
namespace Tether::Fuzz {

struct StreamInput
{
    QByteArrayView stream;
    qsizetype pieceBytes = 1;
    bool smallBounds = false;
};

inline StreamInput streamInput(QByteArrayView input)
{
    if (input.isEmpty())
        return {};
    const auto first = static_cast<unsigned char>(input.front());
    return {input.sliced(1), (first & 0x3f) + 1, (first & 0x40) != 0};
}

inline QList<QByteArrayView> pieces(const StreamInput &input)
{
    QList<QByteArrayView> pieces;
    for (qsizetype at = 0; at < input.stream.size(); at += input.pieceBytes)
        pieces.append(input.stream.sliced(at, std::min(input.pieceBytes, input.stream.size() - at)));
    return pieces;
}

// What every ${env:NAME} expands to, unless NAME starts with UNSET (then it is not set): a text
// that says where it came from, so that a check can tell when an expanded value is shown.
inline constexpr QStringView ExpandedMarker = u"expanded-from-env-";

inline ConfigContext fuzzContext()
{
    return {[](const QString &name) -> std::optional<QString> {
                if (name.startsWith(u"UNSET"))
                    return std::nullopt;
                return ExpandedMarker.toString() + name;
            },
            QStringLiteral("/opt/tether/bin")};
}

// A config path in a folder that does not exist, so that a relative envFile reads nothing.
inline QString fuzzConfigPath()
{
    return QStringLiteral("/nonexistent/tether-fuzz/servers.json");
}

} // namespace Tether::Fuzz
