#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <utility>

namespace Tether {

using FormFields = QList<std::pair<QString, QString>>;

// An application/x-www-form-urlencoded body or query (RFC 6749 Appendix B) in which every key
// and value is percent-encoded but for the unreserved characters, '+' included. Not QUrlQuery:
// its FullyEncoded text leaves '+' as it is, which servers decode as a space, so a code, token
// or secret holding '+' would arrive changed.
QByteArray formEncoded(const FormFields &fields);
// The fields of such a text, '+' read as a space: what a redirect to Tether's callback carries
// (RFC 6749 §4.1.2), in the order given.
FormFields formDecoded(QByteArrayView encoded);
// The value of the first field named `key`; `found` says whether there was one.
QString formValue(const FormFields &fields, const QString &key, bool *found = nullptr);

} // namespace Tether
