#include "elicitationform.h"

#include <QDate>
#include <QDateTime>
#include <QJsonArray>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

// Beyond this a double no longer holds every whole number.
constexpr double LargestExactInteger = 9007199254740992.0;

static std::optional<double> numberMember(const QJsonObject &schema, QStringView key)
{
    const QJsonValue value = schema.value(key);
    return value.isDouble() ? std::optional<double>(value.toDouble()) : std::nullopt;
}

static std::optional<qsizetype> countMember(const QJsonObject &schema, QStringView key)
{
    const QJsonValue value = schema.value(key);
    if (!value.isDouble() || value.toDouble() < 0)
        return std::nullopt;
    return qsizetype(value.toDouble());
}

// The choices of a single-select schema, or of a multi-select's items: "enum" (with the legacy
// "enumNames" as labels), or "oneOf"/"anyOf" of {"const", "title"}.
static QList<ElicitationChoice> choicesOf(const QJsonObject &schema)
{
    QList<ElicitationChoice> choices;
    if (schema.value(u"enum").isArray()) {
        const QJsonArray values = schema.value(u"enum").toArray();
        const QJsonArray names = schema.value(u"enumNames").toArray();
        for (qsizetype index = 0; index < values.size(); ++index) {
            if (!values.at(index).isString())
                continue;
            const QString value = values.at(index).toString();
            const bool named = names.size() == values.size() && names.at(index).isString();
            choices.append({value, named ? names.at(index).toString() : value});
        }
        return choices;
    }
    for (const QStringView key : {u"oneOf", u"anyOf"}) {
        for (const QJsonValue &entry : schema.value(key).toArray()) {
            const QJsonObject option = entry.toObject();
            if (!option.value(u"const").isString())
                continue;
            const QString value = option.value(u"const").toString();
            choices.append({value, option.value(u"title").toString(value)});
        }
    }
    return choices;
}

static bool isChoice(const ElicitationField &field, const QJsonValue &value)
{
    return value.isString() && std::any_of(field.choices.cbegin(), field.choices.cend(), [&](const auto &choice) {
               return choice.value == value.toString();
           });
}

static bool fitsField(const ElicitationField &field, const QJsonValue &value)
{
    switch (field.kind) {
    case ElicitationField::Kind::Text:
        return value.isString();
    case ElicitationField::Kind::Integer:
        return value.isDouble() && std::trunc(value.toDouble()) == value.toDouble();
    case ElicitationField::Kind::Number:
        return value.isDouble();
    case ElicitationField::Kind::Boolean:
        return value.isBool();
    case ElicitationField::Kind::OneChoice:
        return isChoice(field, value);
    case ElicitationField::Kind::ManyChoices: {
        const QJsonArray chosen = value.toArray();
        return value.isArray() && std::all_of(chosen.cbegin(), chosen.cend(), [&](const QJsonValue &entry) {
                   return isChoice(field, entry);
               });
    }
    }
    return false;
}

// The field `schema` describes; nothing, and `kind` saying what it is, when no question fits it.
static std::optional<ElicitationField> fieldOf(const QString &key, const QJsonObject &schema, QString *kind)
{
    ElicitationField field;
    field.key = key;
    field.title = schema.value(u"title").toString().trimmed();
    if (field.title.isEmpty())
        field.title = key;
    field.description = schema.value(u"description").toString().trimmed();
    const QString type = schema.value(u"type").toString();
    if (type == u"string") {
        field.choices = choicesOf(schema);
        field.kind = field.choices.isEmpty() ? ElicitationField::Kind::Text : ElicitationField::Kind::OneChoice;
        field.format = schema.value(u"format").toString();
        field.minLength = countMember(schema, u"minLength");
        field.maxLength = countMember(schema, u"maxLength");
    } else if (type == u"integer" || type == u"number") {
        field.kind = type == u"integer" ? ElicitationField::Kind::Integer : ElicitationField::Kind::Number;
        field.minimum = numberMember(schema, u"minimum");
        field.maximum = numberMember(schema, u"maximum");
    } else if (type == u"boolean") {
        field.kind = ElicitationField::Kind::Boolean;
    } else if (type == u"array") {
        field.kind = ElicitationField::Kind::ManyChoices;
        field.choices = choicesOf(schema.value(u"items").toObject());
        field.minLength = countMember(schema, u"minItems");
        field.maxLength = countMember(schema, u"maxItems");
        if (field.choices.isEmpty()) {
            *kind = u"a list without choices"_s;
            return std::nullopt;
        }
    } else {
        *kind = type.isEmpty() ? u"no type"_s : u"type \"%1\""_s.arg(type);
        return std::nullopt;
    }
    const QJsonValue defaultValue = schema.value(u"default");
    if (fitsField(field, defaultValue))
        field.defaultValue = defaultValue;
    return field;
}

ElicitationForm elicitationForm(const QJsonObject &requestedSchema)
{
    ElicitationForm form;
    const QJsonObject properties = requestedSchema.value(u"properties").toObject();
    QStringList required;
    for (const QJsonValue &name : requestedSchema.value(u"required").toArray()) {
        if (name.isString() && properties.contains(name.toString()) && !required.contains(name.toString()))
            required.append(name.toString());
    }
    // The properties come in alphabetical order (the server's own order is lost with its JSON
    // object): the required ones, in the order the server names them, are asked first.
    QStringList order = required;
    for (const QString &key : properties.keys()) {
        if (!required.contains(key))
            order.append(key);
    }
    for (const QString &key : order) {
        QString kind;
        std::optional<ElicitationField> field = fieldOf(key, properties.value(key).toObject(), &kind);
        if (!field && required.contains(key)) {
            form.unusable = u"its required field '%1' is of a kind tetherctl cannot ask for (%2)"_s.arg(key, kind);
            return form;
        }
        if (!field) {
            form.skipped.append(key);
            continue;
        }
        field->required = required.contains(key);
        form.fields.append(*field);
    }
    return form;
}

static QString numberText(double number)
{
    if (std::trunc(number) == number && std::abs(number) < LargestExactInteger)
        return QString::number(qint64(number));
    return QString::number(number, 'g', QLocale::FloatingPointShortest);
}

// The index of the choice `typed` names: its number in the list, its value or its label.
static std::optional<qsizetype> choiceIndex(const ElicitationField &field, const QString &typed)
{
    bool isNumber = false;
    const int number = typed.toInt(&isNumber);
    if (isNumber)
        return number >= 1 && number <= field.choices.size() ? std::optional<qsizetype>(number - 1) : std::nullopt;
    for (qsizetype index = 0; index < field.choices.size(); ++index) {
        const ElicitationChoice &choice = field.choices.at(index);
        if (choice.value.compare(typed, Qt::CaseInsensitive) == 0
            || choice.label.compare(typed, Qt::CaseInsensitive) == 0)
            return index;
    }
    return std::nullopt;
}

static QString notAChoice(const ElicitationField &field, const QString &typed)
{
    return u"\"%1\" is not one of the choices: type its number, 1 to %2"_s.arg(typed).arg(field.choices.size());
}

static QString textProblem(const ElicitationField &field, const QString &typed)
{
    const qsizetype length = typed.toUcs4().size();
    if (field.minLength && length < *field.minLength)
        return u"that is %1 characters; it takes at least %2"_s.arg(length).arg(*field.minLength);
    if (field.maxLength && length > *field.maxLength)
        return u"that is %1 characters; it takes at most %2"_s.arg(length).arg(*field.maxLength);
    if (field.format == u"email") {
        static const QRegularExpression address(u"^[^@\\s]+@[^@\\s]+\\.[^@\\s.]+$"_s);
        if (!address.match(typed).hasMatch())
            return u"\"%1\" is not an email address such as name@example.com"_s.arg(typed);
    } else if (field.format == u"uri") {
        const QUrl url(typed, QUrl::StrictMode);
        if (!url.isValid() || url.scheme().isEmpty())
            return u"\"%1\" is not a URI such as https://example.com/"_s.arg(typed);
    } else if (field.format == u"date") {
        static const QRegularExpression shape(u"^\\d{4}-\\d{2}-\\d{2}$"_s);
        if (!shape.match(typed).hasMatch() || !QDate::fromString(typed, Qt::ISODate).isValid())
            return u"\"%1\" is not a date written YYYY-MM-DD, such as 1990-04-23"_s.arg(typed);
    } else if (field.format == u"date-time") {
        // Qt takes a date alone as ISO 8601 too; a date-time needs its time.
        static const QRegularExpression shape(u"^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}"_s);
        if (!shape.match(typed).hasMatch() || !QDateTime::fromString(typed, Qt::ISODateWithMs).isValid())
            return u"\"%1\" is not a date and time such as 2025-04-23T14:30:00Z"_s.arg(typed);
    }
    return {};
}

static FieldAnswer readNumber(const ElicitationField &field, const QString &typed)
{
    bool ok = false;
    const double number = QLocale::c().toDouble(typed, &ok);
    if (!ok || !std::isfinite(number))
        return {QJsonValue::Undefined, u"\"%1\" is not a number"_s.arg(typed)};
    const bool integer = field.kind == ElicitationField::Kind::Integer;
    if (integer && (std::trunc(number) != number || std::abs(number) >= LargestExactInteger))
        return {QJsonValue::Undefined, u"\"%1\" is not a whole number"_s.arg(typed)};
    if (field.minimum && number < *field.minimum)
        return {QJsonValue::Undefined, u"%1 is less than the minimum, %2"_s.arg(typed, numberText(*field.minimum))};
    if (field.maximum && number > *field.maximum)
        return {QJsonValue::Undefined, u"%1 is more than the maximum, %2"_s.arg(typed, numberText(*field.maximum))};
    return {integer ? QJsonValue(qint64(number)) : QJsonValue(number), {}};
}

static FieldAnswer readChoices(const ElicitationField &field, const QString &typed)
{
    // Numbers may be separated by blanks too; labels may hold blanks, so only commas part them.
    static const QRegularExpression numbersOnly(u"^[\\d\\s,]+$"_s);
    static const QRegularExpression numberSeparator(u"[\\s,]+"_s);
    const QStringList parts = numbersOnly.match(typed).hasMatch() ? typed.split(numberSeparator, Qt::SkipEmptyParts)
                                                                  : typed.split(u',', Qt::SkipEmptyParts);
    QJsonArray chosen;
    QSet<qsizetype> seen;
    for (const QString &part : parts) {
        const QString name = part.trimmed();
        if (name.isEmpty())
            continue;
        const std::optional<qsizetype> index = choiceIndex(field, name);
        if (!index)
            return {QJsonValue::Undefined, notAChoice(field, name)};
        if (!seen.contains(*index))
            chosen.append(field.choices.at(*index).value);
        seen.insert(*index);
    }
    if (field.minLength && chosen.size() < *field.minLength)
        return {QJsonValue::Undefined, u"choose at least %1"_s.arg(*field.minLength)};
    if (field.maxLength && chosen.size() > *field.maxLength)
        return {QJsonValue::Undefined, u"choose at most %1"_s.arg(*field.maxLength)};
    return {chosen, {}};
}

FieldAnswer readFieldAnswer(const ElicitationField &field, const QString &answer)
{
    const QString typed = answer.trimmed();
    if (typed.isEmpty()) {
        if (!field.defaultValue.isUndefined())
            return {field.defaultValue, {}};
        if (field.required)
            return {QJsonValue::Undefined, u"an answer is required"_s};
        return {};
    }
    switch (field.kind) {
    case ElicitationField::Kind::Text: {
        const QString problem = textProblem(field, typed);
        return {problem.isEmpty() ? QJsonValue(typed) : QJsonValue(QJsonValue::Undefined), problem};
    }
    case ElicitationField::Kind::Integer:
    case ElicitationField::Kind::Number:
        return readNumber(field, typed);
    case ElicitationField::Kind::Boolean: {
        const QString word = typed.toLower();
        if (word == u"y" || word == u"yes" || word == u"true")
            return {true, {}};
        if (word == u"n" || word == u"no" || word == u"false")
            return {false, {}};
        return {QJsonValue::Undefined, u"answer y or n"_s};
    }
    case ElicitationField::Kind::OneChoice: {
        const std::optional<qsizetype> index = choiceIndex(field, typed);
        if (!index)
            return {QJsonValue::Undefined, notAChoice(field, typed)};
        return {field.choices.at(*index).value, {}};
    }
    case ElicitationField::Kind::ManyChoices:
        return readChoices(field, typed);
    }
    return {};
}

// " from 1 to 100", " of at least 0", "": the bounds of a number or a count.
static QString boundsText(const std::optional<QString> &low, const std::optional<QString> &high,
                          const QString &lowWords, const QString &highWords)
{
    if (low && high)
        return u" from %1 to %2"_s.arg(*low, *high);
    if (low)
        return lowWords.arg(*low);
    if (high)
        return highWords.arg(*high);
    return {};
}

static std::optional<QString> asText(const std::optional<double> &number)
{
    return number ? std::optional<QString>(numberText(*number)) : std::nullopt;
}

static std::optional<QString> asText(const std::optional<qsizetype> &count)
{
    return count ? std::optional<QString>(QString::number(*count)) : std::nullopt;
}

// " from 3 to 20", " at least 3": how many characters or choices `field` takes.
static QString countText(const ElicitationField &field)
{
    return boundsText(asText(field.minLength), asText(field.maxLength), u" at least %1"_s, u" at most %1"_s);
}

QString fieldHint(const ElicitationField &field)
{
    QString hint;
    switch (field.kind) {
    case ElicitationField::Kind::Text:
        if (field.format == u"email")
            hint = u"email address"_s;
        else if (field.format == u"uri")
            hint = u"URI"_s;
        else if (field.format == u"date")
            hint = u"date, YYYY-MM-DD"_s;
        else if (field.format == u"date-time")
            hint = u"date and time, such as 2025-04-23T14:30:00Z"_s;
        else
            hint = u"text"_s;
        if (field.minLength || field.maxLength) {
            hint += u","_s + countText(field) + u" characters"_s;
        }
        break;
    case ElicitationField::Kind::Integer:
    case ElicitationField::Kind::Number:
        hint = field.kind == ElicitationField::Kind::Integer ? u"whole number"_s : u"number"_s;
        hint += boundsText(asText(field.minimum), asText(field.maximum), u", at least %1"_s, u", at most %1"_s);
        break;
    case ElicitationField::Kind::Boolean:
        hint = u"y/n"_s;
        break;
    case ElicitationField::Kind::OneChoice:
        hint = u"one choice: its number"_s;
        break;
    case ElicitationField::Kind::ManyChoices:
        hint = u"choices: their numbers, separated by commas"_s;
        if (field.minLength || field.maxLength) {
            hint += u","_s + countText(field) + u" of them"_s;
        }
        break;
    }
    if (field.required)
        hint += u", required"_s;
    return hint;
}

QString fieldValueText(const ElicitationField &field, const QJsonValue &value)
{
    const auto labelOf = [&](const QString &chosen) {
        for (const ElicitationChoice &choice : field.choices) {
            if (choice.value == chosen)
                return choice.label;
        }
        return chosen;
    };
    if (value.isBool())
        return value.toBool() ? u"y"_s : u"n"_s;
    if (value.isDouble())
        return numberText(value.toDouble());
    if (value.isArray()) {
        QStringList labels;
        for (const QJsonValue &entry : value.toArray())
            labels.append(labelOf(entry.toString()));
        return labels.join(u", "_s);
    }
    return labelOf(value.toString());
}

} // namespace Tether::Ctl
