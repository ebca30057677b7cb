#include "oauthsettings.h"

using namespace Qt::StringLiterals;

namespace Tether {

QString tokenStoreChoiceName(TokenStoreChoice choice)
{
    return choice == TokenStoreChoice::File ? u"file"_s : u"auto"_s;
}

} // namespace Tether
