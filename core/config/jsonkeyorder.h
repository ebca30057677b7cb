#pragma once

#include "config/jsontextstyle.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <optional>

namespace Tether {

// The order of the members of every object in a JSON text, which QJsonObject forgets (it sorts
// its keys): what the config reader lists servers by, and what a save writes keys back in.
struct JsonKeyOrder
{
    QStringList keys;                     // an object's member names as written, duplicates included
    QList<int> lines;                     // the line each of `keys` is written on, from 1
    QHash<QString, JsonKeyOrder> members; // the order inside each member (the last of a name: JSON keeps it)
    QList<JsonKeyOrder> elements;         // the order inside each element of an array

    // The order of text that already parsed as JSON; nothing when it cannot be followed.
    static std::optional<JsonKeyOrder> scan(QByteArrayView json);

    // The names written more than once in this object (JSON keeps the last of each), in the order
    // of their first appearance.
    QStringList duplicateKeys() const;
    // The lines `key` is written on, in file order.
    QList<int> linesOf(const QString &key) const;
};

// `root` as QJsonDocument writes it Indented (the same spacing, numbers and escapes), with the
// members of every object in `order`, at every depth: a key keeps the place it has there (the
// first, when written twice); a key that replaces the only one gone from its object (a rename)
// takes that one's place; other new keys follow, alphabetically, as QJsonObject holds them.
// Lines end and indent as `style` says (a file's own: jsonTextStyleOf). With an empty order
// and the default style this is QJsonDocument(root).toJson(QJsonDocument::Indented).
QByteArray toOrderedJson(const QJsonObject &root, const JsonKeyOrder &order, const JsonTextStyle &style = {});

} // namespace Tether
