#include "jsontext.h"

#include "decimaltext.h"
#include "jsonscan.h"

#include "displaytext.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

QString jsonText(const QJsonValue &value, QJsonDocument::JsonFormat format)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(format)).trimmed();
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(format)).trimmed();
    // QJsonDocument holds only containers: wrap the value and strip the brackets.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

void appendJsonString(QByteArray &out, QStringView text)
{
    // Names and methods are printable ASCII with nothing to escape: written byte for byte.
    const bool plain = std::all_of(text.begin(), text.end(), [](QChar character) {
        const char16_t unit = character.unicode();
        return unit >= 0x20 && unit < 0x7f && unit != u'"' && unit != u'\\';
    });
    if (plain) {
        const qsizetype at = out.size();
        out.resize(at + text.size() + 2);
        char *written = out.data() + at;
        *written++ = '"';
        for (const QChar character : text)
            *written++ = char(character.unicode());
        *written = '"';
        return;
    }
    QString escaped;
    escaped.reserve(text.size() + 2);
    escaped += u'"';
    for (const QChar character : text) {
        const char16_t unit = character.unicode();
        switch (unit) {
        case u'"': escaped += u"\\\""_s; break;
        case u'\\': escaped += u"\\\\"_s; break;
        case u'\b': escaped += u"\\b"_s; break;
        case u'\f': escaped += u"\\f"_s; break;
        case u'\n': escaped += u"\\n"_s; break;
        case u'\r': escaped += u"\\r"_s; break;
        case u'\t': escaped += u"\\t"_s; break;
        default:
            if (unit < 0x20)
                escaped += u"\\u%1"_s.arg(uint(unit), 4, 16, QChar(u'0'));
            else
                escaped += character;
        }
    }
    escaped += u'"';
    out += escaped.toUtf8();
}

void appendInteger(QByteArray &out, qint64 value)
{
    out += DecimalText(value).bytes();
}

std::optional<QByteArrayView> jsonMemberText(QByteArrayView objectText, QLatin1StringView name)
{
    const std::optional<JsonMembersText> members = checkedJsonObjectMembers(objectText);
    if (!members)
        return std::nullopt;
    const QByteArrayView key(name.data(), name.size());
    for (const JsonMemberText &member : *members) {
        if (member.key == key)
            return member.value;
    }
    return std::nullopt;
}

QString fieldText(const QJsonValue &value)
{
    return value.isString() ? value.toString() : value.isUndefined() ? QString() : jsonText(value);
}

QString quotedJson(const QJsonValue &value)
{
    QString text;
    if (value.isString())
        text = u'"' + value.toString() + u'"';
    else if (value.isDouble())
        text = QString::number(value.toDouble(), 'g', 12);
    else
        text = jsonText(value);
    // A message stays one readable line however large the value is.
    if (text.size() > 80 || text.contains(u'\n'))
        return excerpt(text.toUtf8());
    return text;
}

QString jsonKind(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return u"a string"_s;
    case QJsonValue::Double:
        return u"a number"_s;
    case QJsonValue::Bool:
        return u"a boolean"_s;
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Array:
        return u"an array"_s;
    case QJsonValue::Object:
        return u"an object"_s;
    case QJsonValue::Undefined:
        break;
    }
    return u"missing"_s;
}

} // namespace Tether
