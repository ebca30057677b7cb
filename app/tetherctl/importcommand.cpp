#include "importcommand.h"

#include "exitstatus.h"
#include "output.h"

#include "config/configfile.h"
#include "config/configimport.h"
#include "config/configlocation.h"
#include "config/configparser.h"
#include "config/serverconfig.h"

#include <QFile>

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
    QFile sourceFile(source);
    if (!sourceFile.open(QIODevice::ReadOnly)) {
        printError(u"cannot read %1: %2"_s.arg(source, sourceFile.errorString()));
        return Failure;
    }
    QJsonObject root;
    QFile targetFile(target);
    if (targetFile.exists()) {
        if (!targetFile.open(QIODevice::ReadOnly)) {
            printError(u"cannot read %1: %2"_s.arg(target, targetFile.errorString()));
            return Failure;
        }
        const ConfigDocument current = parseConfig(targetFile.readAll(), target, programConfigContext());
        if (!current.isValid()) {
            printError(u"%1; nothing was imported"_s.arg(current.errors.join(u"; "_s)));
            return Failure;
        }
        root = current.root;
    }
    const ImportResult result = importServers(root, sourceFile.readAll(), source, format);
    if (!result.error.isEmpty()) {
        printError(result.error);
        return Failure;
    }
    if (!result.added.isEmpty()) {
        QString error;
        if (!saveConfig(target, result.root, &error)) {
            printError(error);
            return Failure;
        }
    }
    QString report = u"imported into %1: %2\n"_s.arg(target, result.added.isEmpty() ? u"nothing"_s : result.added.join(u", "_s));
    for (const QString &skipped : result.skipped)
        report += u"skipped %1\n"_s.arg(skipped);
    printOut(report);
    return Success;
}

} // namespace Tether::Ctl
