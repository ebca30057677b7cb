#pragma once

#include <QByteArrayView>
#include <QVarLengthArray>

#include <optional>

namespace Tether {

// Reading the few members a relay needs from a JSON-RPC message without building an object of
// it: the gateway passes the rest on as the text it came as.

// One member of an object: its key as written between the quotes, its value as written.
struct JsonMemberText
{
    QByteArrayView key;
    QByteArrayView value;
};
using JsonMembersText = QVarLengthArray<JsonMemberText, 8>;

// The members of the one JSON object that `text` is (whitespace around it allowed), in order,
// when the whole text is valid JSON (RFC 8259, strings in valid UTF-8) and no member's key is
// written with escapes or twice. Nothing otherwise, also for valid JSON that is unusual (nested
// deeper than 64, a number beyond 200 digits or with an exponent beyond 2 digits): the caller
// then parses the text in full, which tells what is wrong. Allocates nothing for 8 members or
// fewer.
std::optional<JsonMembersText> validJsonObjectMembers(QByteArrayView text);
// The same, and in the same pass the members of the object that is the value of the member
// `nestedKey` (a request's params, a reply's result), with the same rules for its keys; `nested`
// is left empty when there is no such member, when its value is no object, or when the text is
// refused.
std::optional<JsonMembersText> validJsonObjectMembers(QByteArrayView text, QByteArrayView nestedKey,
                                                      JsonMembersText *nested);
// The same of an object that validJsonObjectMembers has checked already (a member value of one it
// accepted): only walked, not checked again.
std::optional<JsonMembersText> checkedJsonObjectMembers(QByteArrayView checkedText);

// The value of `key` among `members`; an empty view when there is none.
QByteArrayView memberValue(const JsonMembersText &members, QByteArrayView key);

// A member value that is a plain string (no escapes), as its characters between the quotes.
std::optional<QByteArrayView> plainJsonString(QByteArrayView value);

// A member value that is an integer of at most 15 digits, as JSON-RPC ids usually are.
std::optional<qint64> jsonInteger(QByteArrayView value);

} // namespace Tether
