#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QLatin1StringView>
#include <QJsonDocument>
#include <QJsonValue>
#include <QString>
#include <QStringView>

#include <optional>

// JSON values as text, for the two places they are shown: a message that quotes a value, and a
// field or view that shows it whole.
namespace Tether {

// Any JSON value as JSON text, scalars included (a string in quotes): objects and arrays in
// `format`, without a trailing newline.
QString jsonText(const QJsonValue &value, QJsonDocument::JsonFormat format = QJsonDocument::Compact);

// A string written at the end of `out` as JSON text in UTF-8, quotes included, as jsonText writes
// it; and an integer in decimal. What lets a message be written around JSON that is already text,
// into one buffer, without a document or a temporary per piece (every call through the gateway
// writes its messages this way).
void appendJsonString(QByteArray &out, QStringView text);
void appendInteger(QByteArray &out, qint64 value);

// The text of the member `name` of the object written in `objectText`, which a JSON parser has
// already accepted: what lets a value be written on as it came, without a second pass of a
// JSON writer. None when the member is missing, when any key is written twice or with escapes
// (it might be `name`), or when the text is not an object (checkedJsonObjectMembers).
std::optional<QByteArrayView> jsonMemberText(QByteArrayView objectText, QLatin1StringView name);

// A value as a field shows it for editing: a string as its text, anything else as JSON, so that
// a value of the wrong kind is seen for what it is.
QString fieldText(const QJsonValue &value);

// A value as an error message quotes it: a string in double quotes, a number to 12 significant
// digits, anything else as compact JSON; one line, excerpted like JsonRpc::excerpt when longer
// than 80 characters.
QString quotedJson(const QJsonValue &value);

// What kind of value it is, for messages about a value of the wrong kind that never show the
// value itself (it may be a secret): "a string", "an array", "null", "missing", …
QString jsonKind(const QJsonValue &value);

} // namespace Tether
