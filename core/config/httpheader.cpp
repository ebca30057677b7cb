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

bool holdsAuthorization(const QList<std::pair<QString, QString>> &headers)
{
    return std::any_of(headers.begin(), headers.end(), [](const auto &header) {
        return header.first.compare(QStringView(u"Authorization"), Qt::CaseInsensitive) == 0;
    });
}

} // namespace Tether
