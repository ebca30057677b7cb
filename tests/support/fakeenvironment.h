#pragma once

#include "config/configcontext.h"

#include <QHash>

namespace Tether::Testing {

// An environment of exactly these variables, for a test that must never see the real one.
inline EnvironmentLookup fakeEnvironment(const QHash<QString, QString> &variables)
{
    return [variables](const QString &name) -> std::optional<QString> {
        if (!variables.contains(name))
            return std::nullopt;
        return variables.value(name);
    };
}

} // namespace Tether::Testing
