#pragma once

#include "protocol/mcptypes.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

namespace Tether {

// A value snapshot of what one server offers besides tools, as last listed: its resources,
// resource templates and prompts. What the window and tetherctl read; it points into nothing.
struct ServerCatalog
{
    bool offersResources = false; // its initialize result advertises them
    bool offersPrompts = false;
    // The capabilities its initialize result advertised, as the server wrote them (completions,
    // logging, resource subscriptions, tasks …); empty until it has connected.
    QJsonObject capabilities;
    QList<ResourceDefinition> resources;
    QList<ResourceTemplate> templates;
    QList<PromptDefinition> prompts;
    QString resourcesError; // why the last listing failed; the lists before it stay
    QString promptsError;
    // The lists are what the connected server last said, or it offers none: false until it has
    // connected and its first listing has ended.
    bool resourcesListed = false;
    bool promptsListed = false;

    bool isListed() const { return resourcesListed && promptsListed; }

    bool operator==(const ServerCatalog &) const = default;
};

} // namespace Tether

Q_DECLARE_METATYPE(Tether::ServerCatalog)
