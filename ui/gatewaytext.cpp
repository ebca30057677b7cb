#include "gatewaytext.h"

#include "common/duration.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("GatewayText", text);
}

// QAbstractSocket::AddressInUseError, as HttpServer words it.
bool portInUse(const QString &error)
{
    return error.contains(u"address is already in use"_s, Qt::CaseInsensitive);
}

} // namespace

QString gatewayIndicatorText(const GatewayServing &serving)
{
    switch (serving.state) {
    case GatewayServing::State::Off:
        return tr("Gateway off");
    case GatewayServing::State::Relaying:
        return tr("Gateway: tetherctl serve · %1").arg(hostCountText(serving.status.hosts.size()));
    case GatewayServing::State::Serving:
        return tr("Gateway: %1 · %2").arg(serving.url, hostCountText(serving.status.hosts.size()));
    case GatewayServing::State::NotServed:
        return tr("Gateway not served: %1").arg(notServedSummary(serving.error, serving.port));
    }
    return {};
}

QString toolCountText(qsizetype tools)
{
    return tools == 1 ? tr("1 tool") : tr("%1 tools").arg(tools);
}

QString hostCountText(qsizetype hosts)
{
    if (hosts == 0)
        return tr("no hosts");
    return hosts == 1 ? tr("1 host") : tr("%1 hosts").arg(hosts);
}

QString notServedSummary(const QString &error, quint16 port)
{
    if (portInUse(error))
        return tr("port %1 in use").arg(port);
    constexpr qsizetype MaxLength = 60;
    QString clause = error.section(u": "_s, 0, 0).section(u"; "_s, 0, 0);
    if (clause.size() > MaxLength)
        clause = clause.left(MaxLength - 1) + u'…';
    return clause.isEmpty() ? clause : clause.front().toLower() + clause.mid(1);
}

QString httpNotServedText(const QString &error, quint16 port)
{
    if (!portInUse(error))
        return error;
    // StreamableHttpEndpoint::serve names the Tether that holds the port, when one does.
    const qsizetype holder = error.indexOf(u"(the Tether of pid "_s);
    const QString who = holder < 0 ? tr("by another program") : error.mid(holder).section(u')', 0, 0) + u')';
    return tr("Port %1 is in use %2: choose another port.").arg(port).arg(who);
}

QString gatewayOffHint(const GatewayServing &serving)
{
    const QString why = serving.error.isEmpty() ? tr("The gateway is off.") : tr("The gateway is off: %1.").arg(serving.error);
    return why + u' '
           + tr("The AI clients that start tetherctl serve (File ▸ Connect a client…) each start these servers "
                "themselves. Turn on Serve over HTTP to serve this window's servers to AI clients that take a URL "
                "(Cursor, VS Code, Claude Code).");
}

QString gatewayRelayingText(const GatewayServing &serving)
{
    return tr("Serving %1 to %2 through tetherctl serve: the AI clients that start it (File ▸ Connect a client…) use "
              "these servers. Turn on Serve over HTTP for AI clients that take a URL (Cursor, VS Code, Claude Code).")
        .arg(toolCountText(serving.status.exposedTools), hostCountText(serving.status.hosts.size()));
}

QString connectedSinceText(const QDateTime &since, const QDateTime &now)
{
    const QDateTime local = since.toLocalTime();
    const QString at = local.date() == now.toLocalTime().date() ? local.toString(u"HH:mm:ss"_s)
                                                                : local.toString(u"yyyy-MM-dd HH:mm:ss"_s);
    const std::chrono::seconds ago(std::max<qint64>(0, since.secsTo(now)));
    if (ago.count() == 0)
        return tr("%1 (just now)").arg(at);
    return tr("%1 (%2 ago)").arg(at, formatDuration(ago));
}

std::optional<quint64> gatewayCallsTo(const GatewayStatus &status, const QString &server)
{
    for (const auto &[name, calls] : status.callsByServer) {
        if (name == server)
            return calls;
    }
    return std::nullopt;
}

} // namespace Tether
