#pragma once

#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace Tether {

struct JsoncMember;

// A JSON value as written in a text, with where it is: what lets another program's config file be
// edited by splicing bytes, so that everything else in it stays as it was (comments, commas,
// spacing, key order). Offsets are in bytes of the scanned text.
struct JsoncValue
{
    QJsonValue value;
    qsizetype start = 0; // its first byte ('{' of an object)
    qsizetype end = 0;   // just past its last byte ('}' of an object)
    std::vector<JsoncMember> members; // an object's, in the order written
};

struct JsoncMember
{
    QString name;
    qsizetype keyStart = 0;      // the opening quote of its name
    qsizetype commaAfter = -1;   // the comma that follows its value; -1 when none does
    JsoncValue value;
};

struct JsoncScan
{
    std::optional<JsoncValue> root;
    QString error; // "line 4, column 7: …" when the text is not JSON (with comments and trailing commas)
};

// Reads JSON as VS Code writes its settings (JSONC): // and /* */ comments and trailing commas
// allowed; a UTF-8 byte order mark is skipped.
JsoncScan scanJsonc(QByteArrayView text);

// The member `name` of an object (the last one, as JSON keeps it); nullptr if there is none.
const JsoncMember *jsoncMember(const JsoncValue &object, const QString &name);
// The object reached from `root` through the members `path`; nullptr when one is missing or
// not an object.
const JsoncValue *jsoncObjectAt(const JsoncValue &root, const QStringList &path);

} // namespace Tether
