#include "importcommand.h"

#include "exitstatus.h"
#include "output.h"

#include "config/configfile.h"
#include "config/configimport.h"
#include "config/configlocation.h"
#include "config/configparser.h"
#include "config/serverconfig.h"

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

int importConfig(const QString &formatName, const QString &sourcePath, const QString &target)
{
    ImportFormat format;
    if (!importFormatFromName(formatName, &format)) {
        printError(u"import knows claude, cursor and vscode, not '%1' (see tetherctl --help)"_s.arg(formatName));
        return Failure;
    }
    const QString source = sourcePath.isEmpty() ? defaultImportPath(format) : sourcePath;
    if (source.isEmpty()) {
        printError(u"import vscode needs the file: .vscode/mcp.json of a workspace, or VS Code's settings.json"_s);
        return Failure;
    }
    QString error;
    const std::optional<QByteArray> sourceBytes = readConfigFile(source, &error);
    if (!sourceBytes) {
        printError(error);
        return Failure;
    }
    // Under the config's lock: a server another writer saved meanwhile is in the root imported into.
    ImportResult result;
    const auto importInto = [&](const ConfigOnDisk &current, QString *why) -> std::optional<QJsonObject> {
        // A file not there yet reads as a blank one: a config without servers.
        const ConfigDocument document = parseConfig(current.content, target, programConfigContext());
        if (!document.isValid()) {
            *why = u"%1; nothing was imported"_s.arg(document.errors.join(u"; "_s));
            return std::nullopt;
        }
        result = importServers(document, *sourceBytes, source, format);
        *why = result.error;
        if (!result.error.isEmpty() || result.added.isEmpty())
            return std::nullopt;
        return result.root;
    };
    if (!editConfig(target, importInto, &error)) {
        printError(error);
        return Failure;
    }
    QString report = u"imported into %1: %2\n"_s.arg(target, result.added.isEmpty() ? u"nothing"_s : result.added.join(u", "_s));
    for (const QString &skipped : result.skipped)
        report += u"skipped %1\n"_s.arg(skipped);
    printOut(report);
    return Success;
}

} // namespace Tether::Ctl
