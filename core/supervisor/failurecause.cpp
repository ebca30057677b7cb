#include "failurecause.h"

#include "common/displaytext.h"

#include <QRegularExpression>
#include <QUrl>

#include <cerrno>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// How far a summary may run in the table's Last event column.
constexpr qsizetype SummaryChars = 80;

// One line of at most SummaryChars, cut with "…".
QString shortened(const QString &text)
{
    const QString line = withVisibleControls(text.trimmed());
    return line.size() <= SummaryChars ? line : line.first(SummaryChars - 1) + u'…';
}

// `pattern`'s match in `text`, tried only when `text` holds `words`, which every match holds:
// every failure is read here, and most hold none of them, so the plain search spares the match.
QRegularExpressionMatch matchHolding(const QString &text, QStringView words, const QRegularExpression &pattern)
{
    return text.contains(words) ? pattern.match(text) : QRegularExpressionMatch();
}

// The HTTP status a transport's message reports: "… answered initialize with HTTP 401 …".
std::optional<int> httpStatusIn(const QString &error)
{
    static const QRegularExpression answered(uR"(\bwith HTTP (\d{3})\b)"_s);
    const QRegularExpressionMatch match = matchHolding(error, u"with HTTP ", answered);
    return match.hasMatch() ? std::optional<int>(match.captured(1).toInt()) : std::nullopt;
}

// "host:port" of the URL an HTTP transport's message names: "could not connect to <url>: …".
std::optional<QString> unreachableAddressIn(const QString &error)
{
    static const QRegularExpression couldNotConnect(uR"(\bcould not connect to (\S+): connection refused)"_s);
    const QRegularExpressionMatch match = couldNotConnect.match(error);
    if (!match.hasMatch())
        return std::nullopt;
    const QUrl url(match.captured(1));
    if (!url.isValid() || url.host().isEmpty())
        return match.captured(1);
    const QString host = url.host().contains(u':') ? u"[%1]"_s.arg(url.host()) : url.host();
    return u"%1:%2"_s.arg(host).arg(url.port(url.scheme() == u"https" ? 443 : 80));
}

} // namespace

QString FailureCause::text() const
{
    return hint.isEmpty() ? summary : u"%1 (%2)"_s.arg(summary, hint);
}

FailureCause failureCause(const FailureFacts &facts)
{
    if (facts.startErrno) {
        switch (*facts.startErrno) {
        case ENOENT:
            return {u"command not found: %1"_s.arg(facts.program),
                    u"install it, or correct \"command\" in the config"_s, false};
        case EACCES:
        case ENOEXEC:
        case EISDIR:
            return {u"not an executable program: %1"_s.arg(facts.program),
                    u"make it executable (chmod +x), or correct \"command\" in the config"_s, false};
        default:
            return {u"could not start %1: %2"_s.arg(facts.program, qt_error_string(*facts.startErrno)), {}, true};
        }
    }
    // Before the HTTP status: a 403 for want of scope is answered by signing in, not by a token,
    // unless the sign-in asked for that scope already.
    static const QRegularExpression lacksScope(uR"(the sign-in lacks the access this needs(?: \(scope ([^)]*)\))?)"_s);
    if (const QRegularExpressionMatch match = matchHolding(facts.error, u"the sign-in lacks the access this needs", lacksScope);
        facts.signsIn && match.hasMatch()) {
        const QString scope = match.captured(1);
        return {scope.isEmpty() ? u"needs more access"_s : u"needs more access: scope %1"_s.arg(scope),
                u"sign in again"_s, false, scope};
    }
    static const QRegularExpression refusedAgain(uR"(the server refuses a token for scopes it was given already \(([^)]*)\))"_s);
    if (const QRegularExpressionMatch match = matchHolding(facts.error, u"for scopes it was given already", refusedAgain);
        facts.signsIn && match.hasMatch()) {
        return {u"scope %1 refused though the sign-in has it"_s.arg(match.captured(1)),
                u"signing in again cannot help; the server's logs or whoever runs it can say why"_s, false};
    }
    if (const std::optional<int> status = httpStatusIn(facts.error)) {
        if (*status == 401)
            return {u"HTTP 401: needs a token"_s, u"set \"Authorization\" in the server's \"headers\""_s, false};
        if (*status == 403)
            return {u"HTTP 403: access refused"_s, u"check the token in the server's \"headers\""_s, false};
        if (*status == 404)
            return {u"HTTP 404: no MCP endpoint at this URL"_s, u"check \"url\" in the config"_s, true};
        if (*status >= 500)
            return {u"HTTP %1: the server is failing"_s.arg(*status), u"its own logs say why"_s, true};
        return {u"HTTP %1"_s.arg(*status), {}, true};
    }
    static const QRegularExpression unsupportedVersion(uR"(protocol version '([^']*)', which Tether does not speak)"_s);
    if (const QRegularExpressionMatch match = matchHolding(facts.error, u"which Tether does not speak", unsupportedVersion);
        match.hasMatch())
        return {u"unsupported protocol version %1"_s.arg(match.captured(1)), u"update the server or Tether"_s, false};
    static const QRegularExpression pinned(uR"(does not speak protocol ([^,]*), to which (its "protocol" setting|--protocol) pins it|speaks protocol ([^ ]*) only, and (its "protocol" setting|--protocol) pins it)"_s);
    if (const QRegularExpressionMatch match = matchHolding(facts.error, u" pins it", pinned); match.hasMatch()) {
        const bool byOption = match.captured(2) == u"--protocol" || match.captured(4) == u"--protocol";
        const QString advice = byOption ? u"leave out --protocol"_s : u"set \"protocol\" to \"auto\""_s;
        return match.captured(1).isEmpty() ? FailureCause{u"speaks protocol %1 only"_s.arg(match.captured(3)), advice, false}
                                           : FailureCause{u"does not speak protocol %1"_s.arg(match.captured(1)), advice, false};
    }
    if (facts.error.contains(u"refused both eras"_s))
        return {u"refuses both protocol eras"_s, u"update the server or Tether"_s, false};
    if (facts.error.contains(u"heartbeat: "_s) && facts.error.contains(u") were refused: "_s))
        return {u"refuses the heartbeat's pings"_s,
                u"update the server, or turn its heartbeat off: \"heartbeat\": {\"enabled\": false}"_s, false};
    if (facts.exitCode || facts.exitSignal) {
        const QString ended = facts.exitCode ? u"exited with code %1"_s.arg(*facts.exitCode)
                                             : u"killed by %1"_s.arg(signalName(*facts.exitSignal));
        const QString said = facts.lastStderrLine.trimmed();
        return {said.isEmpty() ? ended : u"%1: %2"_s.arg(ended, shortened(said)), {}, true};
    }
    if (facts.error.startsWith(u"connection lost: heartbeat: "_s) || facts.error.startsWith(u"heartbeat: "_s))
        return {u"hung: pings got no answer"_s, {}, true};
    if (facts.error.contains(u": connection refused"_s)) {
        const std::optional<QString> address = unreachableAddressIn(facts.error);
        return {address ? u"could not connect to %1: connection refused"_s.arg(*address) : u"connection refused"_s,
                u"is the server running and listening at its url?"_s, true};
    }
    if (facts.error.contains(u"could not be resolved (DNS)"_s))
        return {u"host not found"_s, u"check \"url\" in the config"_s, true};
    return {shortened(facts.error), {}, true};
}

} // namespace Tether
