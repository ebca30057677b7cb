#include "fuzzentries.h"
#include "fuzzinput.h"

#include "config/configparser.h"
#include "config/jsonkeyorder.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Fuzz {

// What the window, the log and tetherctl may show of a server.
static QString shownOf(const ServerConfig &server)
{
    return server.describe() + u'\n' + server.shownUrl() + u'\n'
           + QString::fromUtf8(QJsonDocument(server.redacted()).toJson(QJsonDocument::Compact));
}

QString configFile(QByteArrayView input)
{
    const ConfigContext context = fuzzContext();
    const ConfigDocument document = parseConfig(input.toByteArray(), fuzzConfigPath(), context);
    // Shown text keeps ${env:NAME} as written: a value the environment gave never shows.
    const bool inputHasMarker = QString::fromUtf8(input).contains(ExpandedMarker);
    for (const ServerConfig &server : document.servers) {
        if (!server.sameSettings(server))
            return u"server '%1' does not have its own settings"_s.arg(server.name);
        if (!inputHasMarker && shownOf(server).contains(ExpandedMarker))
            return u"what is shown of server '%1' holds a value from the environment"_s.arg(server.name);
    }
    if (!document.isValid())
        return {};

    // A save writes back what was read: reading the saved text and saving again changes nothing.
    const QByteArray saved = toOrderedJson(document.root, document.keyOrder);
    const ConfigDocument reread = parseConfig(saved, fuzzConfigPath(), context);
    if (!reread.isValid())
        return u"the saved config does not parse: "_s + reread.errors.join(u"; "_s);
    if (toOrderedJson(reread.root, reread.keyOrder) != saved)
        return u"saving the saved config again changes it"_s;
    if (reread.serverNames() != document.serverNames())
        return u"the saved config lists other servers"_s;
    return {};
}

} // namespace Tether::Fuzz
