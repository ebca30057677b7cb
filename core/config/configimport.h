#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Tether {

enum class ImportFormat { ClaudeDesktop, Cursor, VsCode };

// "claude", "cursor", "vscode"; false for any other word.
bool importFormatFromName(const QString &name, ImportFormat *format);
// Where the program keeps its MCP servers by default; empty when there is no one place (VS Code).
QString defaultImportPath(ImportFormat format);

struct ImportResult
{
    QJsonObject root;     // Tether's config with the imported servers added
    QStringList added;    // server names
    QStringList skipped;  // "name: why"
    QString error;        // the source could not be read at all; nothing was imported
};

// Merges the servers of another program's MCP file into Tether's config `root`, each entry as
// written (url, type and headers included). A server whose name Tether already has, or whose
// entry Tether could not run, is skipped with the reason.
ImportResult importServers(const QJsonObject &root, const QByteArray &source, const QString &sourcePath,
                           ImportFormat format);

} // namespace Tether
