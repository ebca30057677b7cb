#include "protocolera.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Tether {

const QStringList &statelessProtocolVersions()
{
    static const QStringList versions{u"2026-07-28"_s};
    return versions;
}

QStringList spokenProtocolVersions()
{
    return statelessProtocolVersions() + supportedProtocolVersions();
}

QString eraPinText(EraPinnedBy by)
{
    return by == EraPinnedBy::Option ? u"--protocol"_s : u"its \"protocol\" setting"_s;
}

QString eraPinAdvice(EraPinnedBy by, QStringView spoken)
{
    return by == EraPinnedBy::Option ? u"leave out --protocol, or give --protocol %1"_s.arg(spoken)
                                     : u"set \"protocol\" to \"auto\" or \"%1\""_s.arg(spoken);
}

std::optional<ProtocolEra> eraOfVersion(const QString &version)
{
    if (statelessProtocolVersions().contains(version))
        return ProtocolEra::Stateless;
    if (supportedProtocolVersions().contains(version))
        return ProtocolEra::Handshake;
    return std::nullopt;
}

QJsonObject requestEnvelope(const QJsonObject &clientCapabilities, const QJsonObject &clientInfo, const QString &logLevel)
{
    QJsonObject envelope{
        {Envelope::ProtocolVersion.toString(), statelessProtocolVersions().first()},
        {Envelope::ClientCapabilities.toString(), clientCapabilities},
        {Envelope::ClientInfo.toString(), clientInfo},
    };
    if (!logLevel.isEmpty())
        envelope.insert(Envelope::LogLevel.toString(), logLevel);
    return envelope;
}

QJsonObject withEnvelope(QJsonObject params, const QJsonObject &envelope)
{
    QJsonObject meta = params.value(u"_meta").toObject();
    for (auto it = envelope.begin(); it != envelope.end(); ++it)
        meta.insert(it.key(), it.value());
    params.insert(u"_meta"_s, meta);
    return params;
}

std::optional<ServerIdentity> parseDiscoverResult(const QJsonValue &result, QString *error, QStringList *serverVersions)
{
    const QJsonObject object = result.toObject();
    if (!result.isObject()) {
        *error = u"the result is not an object"_s;
        return std::nullopt;
    }
    if (!object.value(u"supportedVersions").isArray()) {
        *error = u"\"supportedVersions\" is missing or not an array"_s;
        return std::nullopt;
    }
    if (!object.value(u"capabilities").isObject()) {
        *error = u"\"capabilities\" is missing or not an object"_s;
        return std::nullopt;
    }
    serverVersions->clear();
    for (const QJsonValue &version : object.value(u"supportedVersions").toArray())
        serverVersions->append(version.toString());
    error->clear();
    QString chosen;
    for (const QString &version : statelessProtocolVersions()) {
        if (serverVersions->contains(version)) {
            chosen = version;
            break;
        }
    }
    if (chosen.isEmpty())
        return std::nullopt;
    return serverIdentityOf(chosen, object.value(u"_meta").toObject().value(Envelope::ServerInfo).toObject(), object);
}

QStringList versionsOfUnsupportedVersionError(const JsonRpc::Error &error)
{
    if (error.code != JsonRpc::UnsupportedProtocolVersion)
        return {};
    QStringList versions;
    for (const QJsonValue &version : error.data.toObject().value(u"supported").toArray())
        versions.append(version.toString());
    return versions;
}

ResultType resultTypeOf(const QJsonObject &result)
{
    const QJsonValue type = result.value(u"resultType");
    if (type.isUndefined())
        return ResultType::Missing;
    if (type == u"complete"_s)
        return ResultType::Complete;
    if (type == u"input_required"_s)
        return ResultType::InputRequired;
    return ResultType::Unknown;
}

bool mayRequireInput(QStringView method)
{
    return method == u"tools/call" || method == u"prompts/get" || method == u"resources/read";
}

QString mcpNameOf(QStringView method, const QJsonObject &params)
{
    if (method == u"tools/call" || method == u"prompts/get")
        return params.value(u"name").toString();
    if (method == u"resources/read")
        return params.value(u"uri").toString();
    return {};
}

static constexpr QByteArrayView Base64Prefix = "=?base64?";
static constexpr QByteArrayView Base64Suffix = "?=";

QByteArray encodeMcpHeaderValue(const QString &value)
{
    const QByteArray utf8 = value.toUtf8();
    bool plain = !utf8.isEmpty() && utf8 == utf8.trimmed()
                 && !(utf8.startsWith(Base64Prefix) && utf8.endsWith(Base64Suffix));
    for (const char c : utf8)
        plain = plain && (c == '\t' || (c >= 0x20 && c <= 0x7e));
    return plain ? utf8 : Base64Prefix.toByteArray() + utf8.toBase64() + Base64Suffix.toByteArray();
}

std::optional<QString> decodeMcpHeaderValue(const QByteArray &value)
{
    if (!value.startsWith(Base64Prefix) || !value.endsWith(Base64Suffix) || value.size() < Base64Prefix.size() + Base64Suffix.size())
        return QString::fromUtf8(value);
    const QByteArray encoded = value.mid(Base64Prefix.size(), value.size() - Base64Prefix.size() - Base64Suffix.size());
    const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return QString::fromUtf8(*decoded);
}

} // namespace Tether
