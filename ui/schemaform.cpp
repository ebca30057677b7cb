#include "schemaform.h"

#include "messagelabel.h"
#include "mnemonics.h"

#include "common/jsontext.h"
#include "protocol/mcptypes.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDate>
#include <QDateTime>
#include <QFontDatabase>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QUrl>
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

// The type a schema names, a nullable one's (["string", "null"]) included; empty for none or several.
static QString typeName(const QJsonObject &schema)
{
    const QJsonValue type = schema.value(u"type");
    if (!type.isArray())
        return type.toString();
    QStringList types;
    for (const QJsonValue &candidate : type.toArray()) {
        if (candidate.toString() != u"null")
            types.append(candidate.toString());
    }
    return types.size() == 1 ? types.first() : QString();
}

QList<SchemaForm::Choice> SchemaForm::choicesOf(const QJsonObject &schema)
{
    QList<Choice> choices;
    const QJsonArray values = schema.value(u"enum").toArray();
    if (!values.isEmpty()) {
        // enumNames: the titles of an enum before MCP's elicitation had titled choices (2025-06-18).
        const QJsonArray names = schema.value(u"enumNames").toArray();
        const bool titled = names.size() == values.size()
                            && std::all_of(names.cbegin(), names.cend(),
                                           [](const QJsonValue &name) { return name.isString(); });
        for (qsizetype i = 0; i < values.size(); ++i) {
            const QJsonValue value = values.at(i);
            choices.append({value, titled                ? names.at(i).toString()
                                   : value.isString() ? value.toString()
                                                      : jsonText(value)});
        }
        return choices;
    }
    // Titled choices: oneOf (or anyOf) of {"const": value, "title": …}; any other entry makes it no choice.
    for (const QString &key : {u"oneOf"_s, u"anyOf"_s}) {
        const QJsonArray options = schema.value(key).toArray();
        if (options.isEmpty())
            continue;
        for (const QJsonValue &option : options) {
            const QJsonValue value = option.toObject().value(u"const");
            if (value.isUndefined())
                return {};
            const QString title = option.toObject().value(u"title").toString();
            choices.append({value, !title.isEmpty() ? title : value.isString() ? value.toString() : jsonText(value)});
        }
        return choices;
    }
    return choices;
}

SchemaForm::FieldKind SchemaForm::kindOf(const QJsonObject &schema)
{
    if (!choicesOf(schema).isEmpty())
        return FieldKind::Enum;
    const QString name = typeName(schema);
    if (name == u"string")
        return FieldKind::Text;
    if (name == u"number")
        return FieldKind::Number;
    if (name == u"integer")
        return FieldKind::Integer;
    if (name == u"boolean")
        return FieldKind::Boolean;
    if (name == u"array" && !choicesOf(schema.value(u"items").toObject()).isEmpty())
        return FieldKind::MultipleChoice;
    return FieldKind::Json;
}

QString SchemaForm::Field::shownName() const
{
    const QString title = schema.value(u"title").toString();
    return title.isEmpty() ? name : title;
}

static QString kindHint(SchemaForm::FieldKind kind, const QJsonObject &schema)
{
    switch (kind) {
    case SchemaForm::FieldKind::Text: {
        const QString format = schema.value(u"format").toString();
        if (format == u"email")
            return SchemaForm::tr("email address");
        if (format == u"uri")
            return SchemaForm::tr("URI, such as https://example.com");
        if (format == u"date")
            return SchemaForm::tr("date, YYYY-MM-DD");
        if (format == u"date-time")
            return SchemaForm::tr("date and time, YYYY-MM-DDThh:mm:ssZ");
        return SchemaForm::tr("text");
    }
    case SchemaForm::FieldKind::Number: return SchemaForm::tr("number");
    case SchemaForm::FieldKind::Integer: return SchemaForm::tr("integer");
    case SchemaForm::FieldKind::Json: return u"JSON"_s;
    case SchemaForm::FieldKind::Boolean:
    case SchemaForm::FieldKind::Enum:
    case SchemaForm::FieldKind::MultipleChoice: break;
    }
    return {};
}

SchemaForm::SchemaForm(const QJsonObject &inputSchema, QWidget *parent, const QString &noFieldsText)
    : QWidget(parent)
{
    auto *layout = new QFormLayout(this);
    layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const ToolParameter &parameter : toolParameters(inputSchema)) {
        const FieldKind kind = kindOf(parameter.schema);
        const QJsonObject items = parameter.schema.value(u"items").toObject();
        const QList<Choice> choices = kind == FieldKind::Enum             ? choicesOf(parameter.schema)
                                      : kind == FieldKind::MultipleChoice ? choicesOf(items)
                                                                          : QList<Choice>();
        addField(Field{parameter.name, kind, parameter.required, parameter.schema, choices}, layout);
    }
    if (m_fields.isEmpty())
        layout->addRow(new QLabel(noFieldsText.isEmpty() ? tr("This tool takes no arguments.") : noFieldsText, this));
}

QWidget *SchemaForm::newEditor(Field &field, QWidget *container)
{
    const QJsonValue defaultValue = field.schema.value(u"default");
    switch (field.kind) {
    case FieldKind::Text:
    case FieldKind::Number:
    case FieldKind::Integer: {
        auto *edit = new QLineEdit(container);
        QString placeholder = kindHint(field.kind, field.schema);
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
        return edit;
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
        return check;
    }
    case FieldKind::Enum: {
        auto *combo = new QComboBox(container);
        combo->addItem(field.required ? tr("(choose one)") : tr("(unset)"));
        for (const Choice &choice : std::as_const(field.choices))
            combo->addItem(choice.title, QVariant::fromValue(choice.value));
        for (int index = 1; index < combo->count() && !defaultValue.isUndefined(); ++index) {
            if (combo->itemData(index).value<QJsonValue>() == defaultValue)
                combo->setCurrentIndex(index);
        }
        return combo;
    }
    case FieldKind::MultipleChoice: {
        auto *list = new QListWidget(container);
        const QJsonArray chosen = defaultValue.toArray();
        for (const Choice &choice : std::as_const(field.choices)) {
            auto *item = new QListWidgetItem(choice.title, list);
            item->setData(Qt::UserRole, QVariant::fromValue(choice.value));
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(chosen.contains(choice.value) ? Qt::Checked : Qt::Unchecked);
        }
        // Every choice in sight up to a dozen; more scroll.
        const int rows = std::min<int>(int(field.choices.size()), 12);
        list->setFixedHeight(rows * list->sizeHintForRow(0) + 2 * list->frameWidth());
        list->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed); // room to spare goes to other fields
        return list;
    }
    case FieldKind::Json: {
        auto *edit = new QPlainTextEdit(container);
        edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont)); // JSON's braces and columns read apart
        edit->setPlaceholderText(field.required ? tr("JSON") : tr("JSON, optional"));
        edit->setTabChangesFocus(true);
        edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 5);
        if (!defaultValue.isUndefined())
            edit->setPlainText(jsonText(defaultValue, QJsonDocument::Indented));
        return edit;
    }
    }
    return nullptr;
}

void SchemaForm::addField(Field field, QFormLayout *layout)
{
    auto *container = new QWidget(this);
    auto *column = new QVBoxLayout(container);
    column->setContentsMargins(0, 0, 0, 0);
    field.editor = newEditor(field, container);
    field.problem = newMessageLabel(container);
    column->addWidget(field.editor);
    column->addWidget(field.problem);

    // Names, titles and descriptions come from the server: shown as written, never as markup.
    const QString description = field.schema.value(u"description").toString();
    field.label = new QLabel(this);
    field.label->setTextFormat(Qt::PlainText);
    field.label->setBuddy(field.editor);
    field.label->setText(labelText(field, withoutMnemonic(field.shownName())));
    // A check box's own text says Yes or No, and a label's buddy is not read by every screen reader.
    field.editor->setAccessibleName(field.required ? tr("%1 (required)").arg(field.shownName()) : field.shownName());
    if (!description.isEmpty())
        field.editor->setAccessibleDescription(description);
    const QString need = field.required ? tr("Required") : tr("Optional");
    // A title hides the name the arguments use, which the JSON view and the server's messages show.
    field.label->setToolTip(field.shownName() == field.name
                                ? need
                                : plainToolTip(tr("%1 (sent as \"%2\")").arg(need, field.name)));
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
    clearProblemOnEdit(field);
}

void SchemaForm::clearProblemOnEdit(const Field &edited)
{
    QLabel *problem = edited.problem;
    const auto clear = [problem] { showMessage(problem, {}); };
    switch (edited.kind) {
    case FieldKind::Text:
    case FieldKind::Number:
    case FieldKind::Integer:
        connect(static_cast<QLineEdit *>(edited.editor), &QLineEdit::textChanged, problem, clear);
        break;
    case FieldKind::Boolean:
        connect(static_cast<QCheckBox *>(edited.editor), &QCheckBox::stateChanged, problem, clear);
        break;
    case FieldKind::Enum:
        connect(static_cast<QComboBox *>(edited.editor), &QComboBox::currentIndexChanged, problem, clear);
        break;
    case FieldKind::MultipleChoice:
        connect(static_cast<QListWidget *>(edited.editor), &QListWidget::itemChanged, problem, clear);
        break;
    case FieldKind::Json: {
        // JSON is judged as it is typed: a stray comma is seen before anything is sent.
        const QString name = edited.name;
        connect(static_cast<QPlainTextEdit *>(edited.editor), &QPlainTextEdit::textChanged, this,
                [this, name] { checkJson(*this->field(name)); });
        break;
    }
    }
}

QString SchemaForm::labelText(const Field &labelled, const QString &shownName)
{
    return labelled.required ? shownName + u" *"_s : shownName;
}

void SchemaForm::assignMnemonics(QString taken)
{
    for (const Field &labelled : std::as_const(m_fields))
        labelled.label->setText(labelText(labelled, withMnemonic(labelled.shownName(), &taken)));
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

QLabel *SchemaForm::problemLabel(const QString &name) const
{
    const Field *found = field(name);
    return found ? found->problem : nullptr;
}

void SchemaForm::checkJson(const Field &jsonField) const
{
    QString error;
    const QString text = static_cast<QPlainTextEdit *>(jsonField.editor)->toPlainText().trimmed();
    const bool valid = text.isEmpty() || parseJsonValue(text, &error);
    showMessage(jsonField.problem, valid ? QString() : tr("Not valid JSON: %1").arg(error));
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

// Whether `text` is written as the string format `format` asks (JSON Schema's email, uri, date
// and date-time, the ones MCP's elicitation allows); an unknown format accepts anything.
static bool hasFormat(const QString &text, QStringView format)
{
    if (format == u"email") {
        static const QRegularExpression address(u"^[^\\s@]+@[^\\s@]+$"_s);
        return address.match(text).hasMatch();
    }
    if (format == u"uri") {
        const QUrl url(text, QUrl::StrictMode);
        return url.isValid() && !url.scheme().isEmpty();
    }
    if (format == u"date") {
        static const QRegularExpression date(u"^\\d{4}-\\d{2}-\\d{2}$"_s);
        return date.match(text).hasMatch() && QDate::fromString(text, Qt::ISODate).isValid();
    }
    if (format == u"date-time") {
        // RFC 3339: a time zone is part of it.
        static const QRegularExpression dateTime(
            u"^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$"_s);
        if (!dateTime.match(text).hasMatch())
            return false;
        QString written = text.toUpper();
        written[10] = u'T'; // RFC 3339 allows a space there, Qt's ISO reading does not
        return QDateTime::fromString(written, Qt::ISODateWithMs).isValid();
    }
    return true;
}

// What is wrong with a string against its schema's format, length and pattern; empty when nothing.
static QString textProblem(const QString &name, const QString &text, const QJsonObject &schema)
{
    const QString format = schema.value(u"format").toString();
    if (!hasFormat(text, format)) {
        if (format == u"email")
            return SchemaForm::tr("'%1' must be an email address, such as name@example.com").arg(name);
        if (format == u"uri")
            return SchemaForm::tr("'%1' must be a URI with its scheme, such as https://example.com").arg(name);
        if (format == u"date")
            return SchemaForm::tr("'%1' must be a date written YYYY-MM-DD, such as 2025-06-18").arg(name);
        return SchemaForm::tr("'%1' must be a date and time written YYYY-MM-DDThh:mm:ss with Z or an offset, "
                              "such as 2025-06-18T09:30:00Z")
            .arg(name);
    }
    // JSON Schema counts characters, not UTF-16 units.
    const qsizetype length = text.toUcs4().size();
    const qint64 least = schema.value(u"minLength").toInteger(-1);
    const qint64 most = schema.value(u"maxLength").toInteger(-1);
    if (least >= 0 && length < least)
        return least == 1 ? SchemaForm::tr("'%1' must be at least 1 character long").arg(name)
                          : SchemaForm::tr("'%1' must be at least %2 characters long").arg(name, QString::number(least));
    if (most >= 0 && length > most)
        return most == 1 ? SchemaForm::tr("'%1' must be at most 1 character long").arg(name)
                         : SchemaForm::tr("'%1' must be at most %2 characters long").arg(name, QString::number(most));
    // A pattern Qt cannot read (ECMAScript's dialect differs in corners) is the server's to judge.
    if (const QJsonValue pattern = schema.value(u"pattern"); pattern.isString()) {
        const QRegularExpression expression(pattern.toString());
        if (expression.isValid() && !expression.match(text).hasMatch())
            return SchemaForm::tr("'%1' must match the pattern %2").arg(name, pattern.toString());
    }
    return {};
}

std::optional<QJsonValue> SchemaForm::valueOf(const Field &source, QString *error) const
{
    const QString name = source.shownName();
    switch (source.kind) {
    case FieldKind::Text: {
        const QString text = static_cast<QLineEdit *>(source.editor)->text();
        if (text.isEmpty())
            return std::nullopt;
        *error = textProblem(name, text, source.schema);
        return error->isEmpty() ? std::optional<QJsonValue>(text) : std::nullopt;
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
                *error = tr("'%1' must be a whole number, not '%2'").arg(name, text);
                return std::nullopt;
            }
        } else {
            // "2.5" always; "2,5" too where that is how the user's locale writes it.
            number = QLocale::c().toDouble(text, &ok);
            if (!ok)
                number = QLocale().toDouble(text, &ok);
            if (!ok || !std::isfinite(number)) {
                *error = tr("'%1' must be a number, not '%2'").arg(name, text);
                return std::nullopt;
            }
        }
        *error = outOfBounds(name, number, source.schema);
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
    case FieldKind::MultipleChoice: {
        const auto *list = static_cast<QListWidget *>(source.editor);
        QJsonArray chosen;
        for (int row = 0; row < list->count(); ++row) {
            if (list->item(row)->checkState() == Qt::Checked)
                chosen.append(list->item(row)->data(Qt::UserRole).value<QJsonValue>());
        }
        if (chosen.isEmpty())
            return std::nullopt;
        const qint64 least = source.schema.value(u"minItems").toInteger(-1);
        const qint64 most = source.schema.value(u"maxItems").toInteger(-1);
        if (least >= 0 && chosen.size() < least)
            *error = least == 1 ? tr("'%1' needs at least 1 choice").arg(name)
                                : tr("'%1' needs at least %2 choices").arg(name, QString::number(least));
        else if (most >= 0 && chosen.size() > most)
            *error = most == 1 ? tr("'%1' takes 1 choice at most").arg(name)
                               : tr("'%1' takes at most %2 choices").arg(name, QString::number(most));
        return error->isEmpty() ? std::optional<QJsonValue>(chosen) : std::nullopt;
    }
    case FieldKind::Json: {
        const QString text = static_cast<QPlainTextEdit *>(source.editor)->toPlainText().trimmed();
        if (text.isEmpty())
            return std::nullopt;
        QString parseError;
        std::optional<QJsonValue> value = parseJsonValue(text, &parseError);
        if (!value)
            *error = tr("'%1' is not valid JSON (%2); correct it or clear the field").arg(name, parseError);
        return value;
    }
    }
    return std::nullopt;
}

std::optional<QJsonValue> SchemaForm::checkedValueOf(const Field &source, QString *error) const
{
    std::optional<QJsonValue> value = valueOf(source, error);
    if (!value && error->isEmpty() && source.required) {
        const QString name = source.shownName();
        *error = source.kind == FieldKind::Enum             ? tr("'%1' is required: choose one").arg(name)
                 : source.kind == FieldKind::MultipleChoice ? tr("'%1' is required: choose at least one").arg(name)
                                                            : tr("'%1' is required: fill it in").arg(name);
    }
    return value;
}

std::optional<QJsonObject> SchemaForm::arguments(QString *error) const
{
    QJsonObject arguments;
    for (const Field &source : m_fields) {
        QString fieldError;
        const std::optional<QJsonValue> value = checkedValueOf(source, &fieldError);
        if (!fieldError.isEmpty()) {
            *error = fieldError;
            return std::nullopt;
        }
        if (value)
            arguments.insert(source.name, *value);
    }
    return arguments;
}

std::optional<QJsonObject> SchemaForm::checkedArguments(QString *error)
{
    QJsonObject arguments;
    QString firstError;
    for (const Field &source : std::as_const(m_fields)) {
        QString fieldError;
        const std::optional<QJsonValue> value = checkedValueOf(source, &fieldError);
        showMessage(source.problem, fieldError);
        if (firstError.isEmpty())
            firstError = fieldError;
        if (value)
            arguments.insert(source.name, *value);
    }
    if (!firstError.isEmpty()) {
        *error = firstError;
        return std::nullopt;
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
    case FieldKind::MultipleChoice: {
        if (!unset && !value.isArray())
            return false;
        const QJsonArray chosen = value.toArray();
        for (const QJsonValue &each : chosen) {
            if (std::none_of(target.choices.cbegin(), target.choices.cend(),
                             [&](const Choice &choice) { return choice.value == each; }))
                return false;
        }
        auto *list = static_cast<QListWidget *>(target.editor);
        for (int row = 0; row < list->count(); ++row) {
            QListWidgetItem *item = list->item(row);
            item->setCheckState(chosen.contains(item->data(Qt::UserRole).value<QJsonValue>()) ? Qt::Checked
                                                                                               : Qt::Unchecked);
        }
        return true;
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
                         .arg(target.shownName(), jsonText(arguments.value(target.name)));
            return false;
        }
    }
    return true;
}

} // namespace Tether
