#include "serverconfigview.h"

#include "common/jsontext.h"
#include "config/configstore.h"
#include "config/jsonkeyorder.h"
#include "config/serverconfig.h"

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The settings the defaults may give, as they are in effect where the entry's own text differs
// (a partial policy, a key left out).
QJsonObject filledInByDefaults(const ServerConfig &config)
{
    const QJsonObject effective = config.redacted();
    const QJsonObject written = config.redactedSource();
    QJsonObject filledIn;
    for (const QString &key : {u"enabled"_s, u"type"_s, u"reconnect"_s, u"heartbeat"_s, u"pool"_s, u"timeoutMs"_s}) {
        if (written.value(key) != effective.value(key))
            filledIn.insert(key, effective.value(key));
    }
    return filledIn;
}

} // namespace

ServerConfigView::ServerConfigView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
}

void ServerConfigView::showConfig(const ServerConfig &config, const ConfigStore &store)
{
    const QString origin = store.isEmbedded()
        ? tr("From the built-in example config, not yet a file: the first edit saves it as %1.").arg(store.savePath())
        : tr("From %1").arg(store.path());
    // Above the settings: a key written twice means the file does not say what it seems to.
    QString warnings;
    for (const QString &warning : config.warnings)
        warnings += tr("Warning: %1\n\n").arg(warning);
    const ConfigDocument &document = store.document();
    const JsonKeyOrder order = document.keyOrder.members.value(document.serversKey).members.value(config.name);
    QString text = tr("%1\n\n%2As written:\n%3").arg(origin, warnings,
                                                    QString::fromUtf8(toOrderedJson(config.redactedSource(), order)));
    const QJsonObject filledIn = filledInByDefaults(config);
    if (!filledIn.isEmpty())
        text += tr("\nIn effect, with the defaults filling in what the entry leaves out:\n%1")
                    .arg(jsonText(filledIn, QJsonDocument::Indented));
    setPlainText(text);
}

} // namespace Tether
