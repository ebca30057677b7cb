#include "httpheader.h"

#include <algorithm>

namespace Tether {

bool isHeaderName(QStringView name)
{
    const auto isTokenCharacter = [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9')
               || QStringView(u"!#$%&'*+-.^_`|~").contains(c);
    };
    return !name.isEmpty() && std::all_of(name.begin(), name.end(), isTokenCharacter);
}

bool isHeaderValue(QStringView value)
{
    return std::none_of(value.begin(), value.end(), [](QChar c) { return (c < u' ' && c != u'\t') || c == u'\x7f'; });
}

} // namespace Tether
