#include "configimport.h"

#include "configparser.h"
#include "jsoncscan.h"

#include <QDir>
#include <QStandardPaths>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

bool importFormatFromName(const QString &name, ImportFormat *format)
{
    if (name == u"claude")
        *format = ImportFormat::ClaudeDesktop;
    else if (name == u"cursor")
        *format = ImportFormat::Cursor;
    else if (name == u"vscode")
        *format = ImportFormat::VsCode;
    else
        return false;
    return true;
}

QString defaultImportPath(ImportFormat format)
{
    switch (format) {
    // Where Electron keeps an app's files: $XDG_CONFIG_HOME, else ~/.config.
    case ImportFormat::ClaudeDesktop:
        return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/Claude/claude_desktop_config.json"_s;
    case ImportFormat::Cursor: return QDir::homePath() + u"/.cursor/mcp.json"_s;
    case ImportFormat::VsCode: return {};
    }
    return {};
}

// Another program's file as written; VS Code's (and Cursor's) may hold comments and trailing
// commas (JSONC), which Tether's own config does not allow.
static ConfigDocument parseForeign(const QByteArray &source, const QString &sourcePath, const ConfigContext &judging)
{
    ConfigDocument strict = parseConfig(source, sourcePath, judging);
    if (strict.isValid())
        return strict;
    const JsoncScan scan = scanJsonc(source);
    if (!scan.root || !scan.root->value.isObject())
        return strict;
    return parseConfig(QJsonDocument(scan.root->value.toObject()).toJson(), sourcePath, judging);
}

ImportPreview previewImport(const QByteArray &source, const QString &sourcePath, ImportFormat format)
{
    ImportPreview preview;
    const ConfigContext judging{[](const QString &) { return std::optional<QString>(u"set"_s); }, u"/"_s};
    const ConfigDocument asWritten = parseForeign(source, sourcePath, judging);
    if (!asWritten.isValid()) {
        preview.error = asWritten.errors.join(u"; "_s);
        return preview;
    }
    QJsonObject document = asWritten.root;
    const QString sourceKey = format == ImportFormat::VsCode ? u"servers"_s : u"mcpServers"_s;
    // VS Code's user settings keep them under "mcp".
    const bool inSettings = format == ImportFormat::VsCode && !document.contains(sourceKey) && document.value(u"mcp").isObject();
    if (inSettings)
        document = document.value(u"mcp").toObject();
    const ConfigDocument parsed =
        inSettings ? parseConfig(QJsonDocument(document).toJson(), sourcePath, judging) : asWritten;
    if (!document.value(sourceKey).isObject()) {
        preview.error = u"%1 has no \"%2\" object: is it a %3 file?"_s.arg(
            sourcePath, sourceKey,
            format == ImportFormat::ClaudeDesktop ? u"Claude Desktop"_s : format == ImportFormat::Cursor ? u"Cursor"_s : u"VS Code"_s);
        return preview;
    }
    const QJsonObject incoming = document.value(sourceKey).toObject();
    for (const ServerConfig &server : parsed.servers) {
        preview.servers.append({server.name, incoming.value(server.name).toObject(), server,
                                server.errors.join(u"; "_s)});
    }
    return preview;
}

ImportResult importServers(const ConfigDocument &target, const QByteArray &source, const QString &sourcePath,
                           ImportFormat format)
{
    ImportResult result;
    result.root = target.root;
    if (const QStringList lost = definitionsLostByRewrite(target.keyOrder); !lost.isEmpty()) {
        result.error = u"%1: %2: JSON keeps only the last one, and saving the import would drop the others, so "
                       "nothing was imported: remove or rename the others, then import again"_s.arg(target.path, lost.join(u"; "_s));
        return result;
    }
    const ImportPreview preview = previewImport(source, sourcePath, format);
    if (!preview.error.isEmpty()) {
        result.error = preview.error;
        return result;
    }
    QJsonObject servers = target.root.value(target.serversKey).toObject();
    for (const ImportCandidate &candidate : preview.servers) {
        if (servers.contains(candidate.name)) {
            result.skipped.append(servers.value(candidate.name).toObject() == candidate.entry
                                      ? u"%1: already in Tether's config"_s.arg(candidate.name)
                                      : u"%1: Tether's config has a different server of that name; rename one of them"_s.arg(candidate.name));
            continue;
        }
        if (!candidate.problem.isEmpty()) {
            result.skipped.append(u"%1: %2"_s.arg(candidate.name, candidate.problem));
            continue;
        }
        servers.insert(candidate.name, candidate.entry);
        result.added.append(candidate.name);
    }
    result.root.insert(target.serversKey, servers);
    return result;
}

} // namespace Tether
