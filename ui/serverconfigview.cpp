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
    setPlainText(tr("From %1\n\n%2").arg(filePath, jsonText(config.redacted(), QJsonDocument::Indented)));
}

} // namespace Tether
