#include "servertarget.h"

#include "auth/signinservice.h"
#include "config/configlocation.h"
#include "config/configparser.h"
#include "config/serverconfig.h"
#include "manager/transportfactory.h"
#include "transport/stdiotransport.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

ServerTarget stdioTarget(const StdioServerCommand &command)
{
    return {QFileInfo(command.program).fileName(), command.commandLine(),
            [command] { return std::make_unique<StdioTransport>(command); }, std::nullopt};
}

// A message of the config reader about the url or a header, worded for the flag that gave it.
static QString asFlagMessage(const QString &message, const QString &serverPath)
{
    const QString urlPath = memberPath(serverPath, u"url"_s);
    const QString headersPath = memberPath(serverPath, u"headers"_s);
    if (message.startsWith(urlPath)) {
        QString rest = message.sliced(urlPath.size());
        if (rest.startsWith(u" = "_s))
            rest.remove(0, 2);
        return u"--url"_s + rest;
    }
    if (message.startsWith(headersPath)) {
        // ".Name ..." or "[\"odd name\"] ...": the header's name after the flag.
        QString rest = message.sliced(headersPath.size());
        if (rest.startsWith(u'['))
            rest.remove(rest.indexOf(u']'), 1);
        if (rest.startsWith(u'.') || rest.startsWith(u'['))
            rest[0] = u' ';
        return u"--header"_s + rest;
    }
    return message;
}

std::optional<ServerTarget> remoteTarget(const RemoteServerFlags &flags, SignInService *signIn, QString *error)
{
    if (!flags.transport.isEmpty() && flags.transport != u"http" && flags.transport != u"sse") {
        *error = u"--transport wants http (Streamable HTTP only) or sse (HTTP+SSE only), not '%1'"_s.arg(flags.transport);
        return std::nullopt;
    }
    // Header values may be secrets: messages name the header, never its value.
    QJsonObject headers;
    for (const QString &header : flags.headers) {
        const qsizetype colon = header.indexOf(u':');
        const QString name = header.left(colon).trimmed();
        if (colon < 0 || name.isEmpty()) {
            *error = u"--header wants 'Name: value', such as 'Authorization: Bearer ${env:TOKEN}'; one of them has "
                     "no name before a ':' (it is not shown, it may hold a secret)"_s;
            return std::nullopt;
        }
        if (headers.contains(name)) {
            *error = u"--header %1 is given twice: give each header once"_s.arg(name);
            return std::nullopt;
        }
        headers.insert(name, header.sliced(colon + 1).trimmed());
    }

    // One server in a config of its own, read as the config file is read.
    const QString host = QUrl(flags.url).host();
    const QString name = host.isEmpty() ? u"server"_s : host;
    const QString serversKey = u"mcpServers"_s;
    const QString source = u"tetherctl"_s;
    QJsonObject entry{{u"type"_s, flags.transport.isEmpty() ? u"http"_s : flags.transport}, {u"url"_s, flags.url}};
    if (!headers.isEmpty())
        entry.insert(u"headers"_s, headers);
    const ConfigDocument document = parseConfig(
        QJsonDocument(QJsonObject{{serversKey, QJsonObject{{name, entry}}}}).toJson(), source, programConfigContext());
    ServerConfig server = document.servers.value(0);
    const QStringList errors = document.errors + server.errors;
    if (!errors.isEmpty() || document.servers.isEmpty()) {
        QStringList messages;
        for (const QString &message : errors)
            messages.append(asFlagMessage(message.sliced(source.size() + 2), memberPath(serversKey, name)));
        *error = messages.join(u"; "_s);
        return std::nullopt;
    }
    server.requestTimeout = flags.timeout;
    const HttpFallback fallback = flags.transport.isEmpty() ? HttpFallback::ToHttpSse : HttpFallback::None;
    if (!signIn || !server.usesSignIn())
        return ServerTarget{server.name, server.describe(), transportFactoryFor(server, fallback), std::nullopt};
    return ServerTarget{server.name, server.describe(),
                        transportFactoryFor(server, fallback, signIn->credentialsFor(server)), server};
}

} // namespace Tether::Ctl
