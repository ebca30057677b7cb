#include "schemaform.h"

#include "messagelabel.h"
#include "mnemonics.h"

#include "common/jsontext.h"
#include "protocol/mcptypes.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Tether {

// Any JSON value, scalars included (QJsonDocument alone parses only objects and arrays).
static std::optional<QJsonValue> parseJsonValue(const QString &text, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(u"["_s.append(text).append(u']').toUtf8(), &parseError);
    const QJsonArray wrapped = document.array();
    if (parseError.error != QJsonParseError::NoError || wrapped.size() != 1) {
        *error = parseError.error != QJsonParseError::NoError
                     ? u"%1 at character %2"_s.arg(parseError.errorString()).arg(std::max(0, parseError.offset - 1))
                     : u"it holds more than one value"_s;
        return std::nullopt;
    }
    return wrapped.first();
}

static SchemaForm::FieldKind kindOf(const QJsonObject &schema)
{
    if (!schema.value(u"enum").toArray().isEmpty())
        return SchemaForm::FieldKind::Enum;
    QJsonValue type = schema.value(u"type");
    if (type.isArray()) {
        // ["string", "null"] is a string that may be left out.
        QJsonArray types;
        for (const QJsonValue &candidate : type.toArray()) {
            if (candidate.toString() != u"null")
                types.append(candidate);
        }
        type = types.size() == 1 ? types.first() : QJsonValue();
    }
    const QString name = type.toString();
    if (name == u"string")
        return SchemaForm::FieldKind::Text;
    if (name == u"number")
        return SchemaForm::FieldKind::Number;
    if (name == u"integer")
        return SchemaForm::FieldKind::Integer;
    if (name == u"boolean")
        return SchemaForm::FieldKind::Boolean;
    return SchemaForm::FieldKind::Json;
}

static QString kindHint(SchemaForm::FieldKind kind)
{
    switch (kind) {
    case SchemaForm::FieldKind::Text: return u"text"_s;
    case SchemaForm::FieldKind::Number: return u"number"_s;
    case SchemaForm::FieldKind::Integer: return u"integer"_s;
    case SchemaForm::FieldKind::Json: return u"JSON"_s;
    case SchemaForm::FieldKind::Boolean:
    case SchemaForm::FieldKind::Enum: break;
    }
    return {};
}

SchemaForm::SchemaForm(const QJsonObject &inputSchema, QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QFormLayout(this);
    layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const ToolParameter &parameter : toolParameters(inputSchema))
        addField(Field{parameter.name, kindOf(parameter.schema), parameter.required, parameter.schema}, layout);
    if (m_fields.isEmpty())
        layout->addRow(new QLabel(tr("This tool takes no arguments."), this));
}

void SchemaForm::addField(Field field, QFormLayout *layout)
{
    const QJsonValue defaultValue = field.schema.value(u"default");
    auto *container = new QWidget(this);
    auto *column = new QVBoxLayout(container);
    column->setContentsMargins(0, 0, 0, 0);
    switch (field.kind) {
    case FieldKind::Text:
    case FieldKind::Number:
    case FieldKind::Integer: {
        auto *edit = new QLineEdit(container);
        QString placeholder = kindHint(field.kind);
        const QJsonValue minimum = field.schema.value(u"minimum");
        const QJsonValue maximum = field.schema.value(u"maximum");
        if (minimum.isDouble() || maximum.isDouble()) {
            placeholder += u", "_s + (minimum.isDouble() ? jsonText(minimum) : QString()) + u" … "_s
                           + (maximum.isDouble() ? jsonText(maximum) : QString());
        }
        edit->setPlaceholderText(field.required ? placeholder : placeholder + tr(", optional"));
        if (field.kind == FieldKind::Text && defaultValue.isString())
            edit->setText(defaultValue.toString());
        else if (field.kind != FieldKind::Text && defaultValue.isDouble())
            edit->setText(jsonText(defaultValue));
        field.editor = edit;
        break;
    }
    case FieldKind::Boolean: {
        auto *check = new QCheckBox(container);
        // Optional: a third state leaves the argument out.
        check->setTristate(!field.required);
        const auto describe = [check] {
            check->setText(check->checkState() == Qt::PartiallyChecked ? tr("Not set (left out)")
                           : check->isChecked()                        ? tr("Yes")
                                                                       : tr("No"));
        };
        connect(check, &QCheckBox::stateChanged, check, describe);
        check->setCheckState(defaultValue.isBool() ? (defaultValue.toBool() ? Qt::Checked : Qt::Unchecked)
                             : field.required     ? Qt::Unchecked
                                                  : Qt::PartiallyChecked);
        describe();
        field.editor = check;
        break;
    }
    case FieldKind::Enum: {
        auto *combo = new QComboBox(container);
        combo->addItem(field.required ? tr("(choose one)") : tr("(unset)"));
        for (const QJsonValue &value : field.schema.value(u"enum").toArray())
            combo->addItem(value.isString() ? value.toString() : jsonText(value), QVariant::fromValue(value));
        if (!defaultValue.isUndefined()) {
            for (int index = 1; index < combo->count(); ++index) {
                if (combo->itemData(index).value<QJsonValue>() == defaultValue)
                    combo->setCurrentIndex(index);
            }
        }
        field.editor = combo;
        break;
    }
    case FieldKind::Json: {
        auto *edit = new QPlainTextEdit(container);
        edit->setPlaceholderText(field.required ? tr("JSON") : tr("JSON, optional"));
        edit->setTabChangesFocus(true);
        edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 5);
        if (!defaultValue.isUndefined())
            edit->setPlainText(jsonText(defaultValue, QJsonDocument::Indented));
        field.jsonError = newMessageLabel(container);
        field.editor = edit;
        break;
    }
    }
    column->addWidget(field.editor);
    if (field.jsonError)
        column->addWidget(field.jsonError);

    // Names and descriptions come from the server: shown as written, never as markup.
    const QString description = field.schema.value(u"description").toString();
    field.label = new QLabel(this);
    field.label->setTextFormat(Qt::PlainText);
    field.label->setBuddy(field.editor);
    field.label->setText(labelText(field, withoutMnemonic(field.name)));
    field.label->setToolTip(field.required ? tr("Required") : tr("Optional"));
    if (!description.isEmpty()) {
        field.editor->setToolTip(plainToolTip(description));
        auto *help = new QLabel(container);
        help->setTextFormat(Qt::PlainText);
        help->setText(description);
        help->setWordWrap(true);
        help->setForegroundRole(QPalette::PlaceholderText);
        column->addWidget(help);
    }
    layout->addRow(field.label, container);
    m_fields.append(field);
    if (field.kind == FieldKind::Json) {
        const QString name = field.name;
        connect(static_cast<QPlainTextEdit *>(field.editor), &QPlainTextEdit::textChanged, this,
                [this, name] { checkJson(*this->field(name)); });
    }
}

QString SchemaForm::labelText(const Field &labelled, const QString &shownName)
{
    return labelled.required ? shownName + u" *"_s : shownName;
}

void SchemaForm::assignMnemonics(QString taken)
{
    for (const Field &labelled : std::as_const(m_fields))
        labelled.label->setText(labelText(labelled, withMnemonic(labelled.name, &taken)));
}

const SchemaForm::Field *SchemaForm::field(const QString &name) const
{
    for (const Field &candidate : m_fields) {
        if (candidate.name == name)
            return &candidate;
    }
    return nullptr;
}

QStringList SchemaForm::fieldNames() const
{
    QStringList names;
    for (const Field &candidate : m_fields)
        names.append(candidate.name);
    return names;
}

SchemaForm::FieldKind SchemaForm::fieldKind(const QString &name) const
{
    const Field *found = field(name);
    return found ? found->kind : FieldKind::Json;
}

bool SchemaForm::isRequired(const QString &name) const
{
    const Field *found = field(name);
    return found && found->required;
}

QWidget *SchemaForm::editor(const QString &name) const
{
    const Field *found = field(name);
    return found ? found->editor : nullptr;
}

void SchemaForm::checkJson(const Field &jsonField) const
{
    QString error;
    const QString text = static_cast<QPlainTextEdit *>(jsonField.editor)->toPlainText().trimmed();
    const bool valid = text.isEmpty() || parseJsonValue(text, &error);
    showMessage(jsonField.jsonError, valid ? QString() : tr("Not valid JSON: %1").arg(error));
}

// Checks a number against the schema's bounds; empty when it is inside them.
static QString outOfBounds(const QString &name, double value, const QJsonObject &schema)
{
    const QJsonValue minimum = schema.value(u"minimum");
    const QJsonValue maximum = schema.value(u"maximum");
    const QJsonValue exclusiveMinimum = schema.value(u"exclusiveMinimum");
    const QJsonValue exclusiveMaximum = schema.value(u"exclusiveMaximum");
    if (minimum.isDouble() && value < minimum.toDouble())
        return SchemaForm::tr("'%1' must be at least %2").arg(name, jsonText(minimum));
    if (maximum.isDouble() && value > maximum.toDouble())
        return SchemaForm::tr("'%1' must be at most %2").arg(name, jsonText(maximum));
    if (exclusiveMinimum.isDouble() && value <= exclusiveMinimum.toDouble())
        return SchemaForm::tr("'%1' must be more than %2").arg(name, jsonText(exclusiveMinimum));
    if (exclusiveMaximum.isDouble() && value >= exclusiveMaximum.toDouble())
        return SchemaForm::tr("'%1' must be less than %2").arg(name, jsonText(exclusiveMaximum));
    return {};
}

std::optional<QJsonValue> SchemaForm::valueOf(const Field &source, QString *error) const
{
    switch (source.kind) {
    case FieldKind::Text: {
        const QString text = static_cast<QLineEdit *>(source.editor)->text();
        return text.isEmpty() ? std::nullopt : std::optional<QJsonValue>(text);
    }
    case FieldKind::Number:
    case FieldKind::Integer: {
        const QString text = static_cast<QLineEdit *>(source.editor)->text().trimmed();
        if (text.isEmpty())
            return std::nullopt;
        bool ok = false;
        double number = 0;
        if (source.kind == FieldKind::Integer) {
            const qint64 integer = QLocale::c().toLongLong(text, &ok);
            number = double(integer);
            if (!ok) {
                *error = tr("'%1' must be a whole number, not '%2'").arg(source.name, text);
                return std::nullopt;
            }
        } else {
            // "2.5" always; "2,5" too where that is how the user's locale writes it.
            number = QLocale::c().toDouble(text, &ok);
            if (!ok)
                number = QLocale().toDouble(text, &ok);
            if (!ok || !std::isfinite(number)) {
                *error = tr("'%1' must be a number, not '%2'").arg(source.name, text);
                return std::nullopt;
            }
        }
        *error = outOfBounds(source.name, number, source.schema);
        if (!error->isEmpty())
            return std::nullopt;
        return source.kind == FieldKind::Integer ? QJsonValue(qint64(number)) : QJsonValue(number);
    }
    case FieldKind::Boolean: {
        const auto *check = static_cast<QCheckBox *>(source.editor);
        if (check->checkState() == Qt::PartiallyChecked)
            return std::nullopt;
        return QJsonValue(check->isChecked());
    }
    case FieldKind::Enum: {
        const auto *combo = static_cast<QComboBox *>(source.editor);
        if (combo->currentIndex() <= 0)
            return std::nullopt;
        return combo->currentData().value<QJsonValue>();
    }
    case FieldKind::Json: {
        const QString text = static_cast<QPlainTextEdit *>(source.editor)->toPlainText().trimmed();
        if (text.isEmpty())
            return std::nullopt;
        QString parseError;
        std::optional<QJsonValue> value = parseJsonValue(text, &parseError);
        if (!value)
            *error = tr("'%1' is not valid JSON (%2); correct it or clear the field").arg(source.name, parseError);
        return value;
    }
    }
    return std::nullopt;
}

std::optional<QJsonObject> SchemaForm::arguments(QString *error) const
{
    QJsonObject arguments;
    for (const Field &source : m_fields) {
        QString fieldError;
        const std::optional<QJsonValue> value = valueOf(source, &fieldError);
        if (!fieldError.isEmpty()) {
            *error = fieldError;
            return std::nullopt;
        }
        if (value)
            arguments.insert(source.name, *value);
        else if (source.required) {
            *error = tr("'%1' is required: fill it in").arg(source.name);
            return std::nullopt;
        }
    }
    return arguments;
}

QJsonObject SchemaForm::filledIn() const
{
    QJsonObject arguments;
    for (const Field &source : m_fields) {
        QString ignored;
        if (const std::optional<QJsonValue> value = valueOf(source, &ignored))
            arguments.insert(source.name, *value);
    }
    return arguments;
}

bool SchemaForm::show(const Field &target, const QJsonValue &value)
{
    const bool unset = value.isUndefined();
    switch (target.kind) {
    case FieldKind::Text:
        if (!unset && !value.isString())
            return false;
        static_cast<QLineEdit *>(target.editor)->setText(value.toString());
        return true;
    case FieldKind::Number:
    case FieldKind::Integer:
        if (!unset && !value.isDouble())
            return false;
        static_cast<QLineEdit *>(target.editor)->setText(unset ? QString() : jsonText(value));
        return true;
    case FieldKind::Boolean: {
        auto *check = static_cast<QCheckBox *>(target.editor);
        if (unset) {
            check->setCheckState(target.required ? Qt::Unchecked : Qt::PartiallyChecked);
            return true;
        }
        if (!value.isBool())
            return false;
        check->setCheckState(value.toBool() ? Qt::Checked : Qt::Unchecked);
        return true;
    }
    case FieldKind::Enum: {
        auto *combo = static_cast<QComboBox *>(target.editor);
        for (int index = 1; index < combo->count() && !unset; ++index) {
            if (combo->itemData(index).value<QJsonValue>() == value) {
                combo->setCurrentIndex(index);
                return true;
            }
        }
        combo->setCurrentIndex(0);
        return unset;
    }
    case FieldKind::Json:
        static_cast<QPlainTextEdit *>(target.editor)->setPlainText(unset ? QString() : jsonText(value, QJsonDocument::Indented));
        return true;
    }
    return false;
}

bool SchemaForm::setArguments(const QJsonObject &arguments, QString *error)
{
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        if (!field(it.key())) {
            *error = tr("the form has no field '%1'; keep editing the arguments as JSON").arg(it.key());
            return false;
        }
    }
    for (const Field &target : std::as_const(m_fields)) {
        if (!show(target, arguments.value(target.name))) {
            *error = tr("the value of '%1' does not fit its field (%2); keep editing the arguments as JSON")
                         .arg(target.name, jsonText(arguments.value(target.name)));
            return false;
        }
    }
    return true;
}

} // namespace Tether
