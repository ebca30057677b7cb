#include "eventfilter.h"

#include "manager/eventlogtext.h"

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The levels of MCP log messages (RFC 5424's), least severe first; a level Tether does not know
// counts as "info".
int severity(const QString &level)
{
    static const QStringList levels{u"debug"_s, u"info"_s,  u"notice"_s, u"warning"_s,
                                    u"error"_s, u"critical"_s, u"alert"_s, u"emergency"_s};
    const int index = int(levels.indexOf(level));
    return index < 0 ? 1 : index;
}

} // namespace

bool EventFilter::matches(const ServerEvent &event) const
{
    if (!server.isEmpty() && event.server != server)
        return false;
    if (kind && event.kind != *kind)
        return false;
    const int eventSeverity = severity(eventLevel(event));
    if ((level == Level::WarningsAndErrors && eventSeverity < severity(u"warning"_s))
        || (level == Level::Errors && eventSeverity < severity(u"error"_s)))
        return false;
    return text.isEmpty() || eventText(event).contains(text, Qt::CaseInsensitive);
}

} // namespace Tether
