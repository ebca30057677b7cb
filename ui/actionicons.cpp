#include "actionicons.h"

using namespace Qt::StringLiterals;

namespace Tether {

QIcon actionIcon(const QString &themeName, const QString &fallback)
{
    return QIcon::fromTheme(themeName, QIcon(u":/tether/icons/"_s + fallback + u".svg"_s));
}

} // namespace Tether
