#include "scopestepup.h"

#include <algorithm>

namespace Tether {

QStringList stepUpScopes(const QStringList &held, const QStringList &asked)
{
    QStringList scopes;
    for (const QString &scope : held + asked)
        if (!scope.isEmpty() && !scopes.contains(scope))
            scopes.append(scope);
    return scopes;
}

bool stepUpCanHelp(const QStringList &askedAtLastSignIn, const QStringList &asked)
{
    return std::any_of(asked.begin(), asked.end(),
                       [&askedAtLastSignIn](const QString &scope) { return !askedAtLastSignIn.contains(scope); });
}

} // namespace Tether
