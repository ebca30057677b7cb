#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

// The fields of a form-mode elicitation (MCP's requestedSchema) and what a typed answer means for
// each: plain values and functions, no terminal.
namespace Tether::Ctl {

struct ElicitationChoice
{
    QString value; // what the answer carries
    QString label; // what the user reads: the choice's title, else its value
};

struct ElicitationField
{
    enum class Kind { Text, Integer, Number, Boolean, OneChoice, ManyChoices };

    QString key;
    QString title; // the schema's title, else the key
    QString description;
    Kind kind = Kind::Text;
    bool required = false;
    QJsonValue defaultValue = QJsonValue::Undefined; // undefined: none, or one that does not fit the field
    QString format;                                  // Text: "email", "uri", "date", "date-time" or empty
    std::optional<double> minimum;                   // Integer, Number
    std::optional<double> maximum;
    std::optional<qsizetype> minLength; // Text: characters; ManyChoices: how many are chosen
    std::optional<qsizetype> maxLength;
    QList<ElicitationChoice> choices; // OneChoice, ManyChoices
};

struct ElicitationForm
{
    QList<ElicitationField> fields; // the required ones first, in the order `required` names them
    QStringList skipped;            // optional fields of a kind no terminal question fits, left out
    QString unusable;               // why the form cannot be filled in here; empty when it can
};

// The form `requestedSchema` asks for.
ElicitationForm elicitationForm(const QJsonObject &requestedSchema);

struct FieldAnswer
{
    QJsonValue value = QJsonValue::Undefined; // undefined: the field is left out
    QString problem;                          // why the answer does not do; empty when it does
};

// What the typed `answer` gives `field`: an empty answer takes the default, or leaves out a field
// that is not required.
FieldAnswer readFieldAnswer(const ElicitationField &field, const QString &answer);

// What kind of answer `field` wants, in a few words: "whole number from 1 to 100, required".
QString fieldHint(const ElicitationField &field);
// `value` of `field` as the user typed or would type it: "y", "Monica", "Guitar, Piano".
QString fieldValueText(const ElicitationField &field, const QJsonValue &value);

} // namespace Tether::Ctl
