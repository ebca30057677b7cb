#include "serverconfigview.h"

#include "common/jsontext.h"
#include "config/serverconfig.h"

namespace Tether {

ServerConfigView::ServerConfigView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
}

void ServerConfigView::showConfig(const ServerConfig &config, const QString &filePath)
{
    // Above the settings: a key written twice means the file does not say what it seems to.
    QString warnings;
    for (const QString &warning : config.warnings)
        warnings += tr("Warning: %1\n\n").arg(warning);
    setPlainText(tr("From %1\n\n%2%3").arg(filePath, warnings, jsonText(config.redacted(), QJsonDocument::Indented)));
}

} // namespace Tether
