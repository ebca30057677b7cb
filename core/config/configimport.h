#pragma once

#include "serverconfig.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace Tether {

enum class ImportFormat { ClaudeDesktop, Cursor, VsCode };

// "claude", "cursor", "vscode"; false for any other word.
bool importFormatFromName(const QString &name, ImportFormat *format);
// Where the program keeps its MCP servers by default; empty when there is no one place (VS Code).
QString defaultImportPath(ImportFormat format);

// One server of another program's file, as Tether would read it.
struct ImportCandidate
{
    QString name;
    QJsonObject entry;    // exactly as written in the source
    ServerConfig server;  // judged with variables left unexpanded (describe() and redacted() show it)
    QString problem;      // why Tether could not run it; empty when it can be imported
};

struct ImportPreview
{
    QList<ImportCandidate> servers; // in file order
    QString error;                  // the source could not be read at all
};

// The servers of another program's MCP file, each judged as Tether would run it. Variables are
// not expanded: they are looked up when Tether runs the server, where the environment may differ.
ImportPreview previewImport(const QByteArray &source, const QString &sourcePath, ImportFormat format);

struct ImportResult
{
    QJsonObject root;     // Tether's config with the imported servers added
    QStringList added;    // server names
    QStringList skipped;  // "name: why"
    QString error;        // the source could not be read at all; nothing was imported
};

// Merges the servers of another program's MCP file into Tether's config `target` (as read from
// its file), each entry as written (url, type and headers included). A server whose name Tether
// already has, or whose entry Tether could not run, is skipped with the reason. Imports nothing
// when `target` has a server's name or a top-level key written twice: the file written back would
// keep only the last of each, and the others would be lost without a word.
ImportResult importServers(const ConfigDocument &target, const QByteArray &source, const QString &sourcePath,
                           ImportFormat format);

} // namespace Tether
