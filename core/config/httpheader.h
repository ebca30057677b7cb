#pragma once

#include <QList>
#include <QString>
#include <QStringView>

#include <utility>

// What an HTTP header may hold (RFC 9110). A line break in a name or value would end the header
// early and send the rest as headers of its own; the config refuses such headers, and the
// request is built with none.
namespace Tether {

// A token: letters, digits and !#$%&'*+-.^_`|~, at least one.
bool isHeaderName(QStringView name);
// No control character but tab: no CR, LF, NUL, ESC or DEL.
bool isHeaderValue(QStringView value);

// Whether configured headers hold an Authorization: the user's choice of credentials, sent as
// it is and never replaced by a sign-in.
bool holdsAuthorization(const QList<std::pair<QString, QString>> &headers);

} // namespace Tether
