#pragma once

#include <QJsonObject>
#include <QWidget>

#include <optional>

class QFormLayout;
class QLabel;

namespace Tether {

// A form for the arguments of one tool, generated from its input schema (JSON Schema, as MCP
// tools carry it): a line edit for strings, numbers and integers, a check box for booleans
// (three states when optional, so an unset field is left out), a combo box for an enum, and a
// JSON editor for anything else (objects, arrays, anyOf …). Defaults are filled in, required
// fields are marked with '*', descriptions become tool tips and help text.
class SchemaForm final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SchemaForm)

public:
    enum class FieldKind { Text, Number, Integer, Boolean, Enum, Json };

    explicit SchemaForm(const QJsonObject &inputSchema, QWidget *parent = nullptr);

    // Gives each field's label a mnemonic (Alt+letter) of its own, none of those in `taken`: the
    // letters of the dialog around the form. Until then the labels have none.
    void assignMnemonics(QString taken);

    // Required fields first, in the schema's order, then the others by name.
    QStringList fieldNames() const;
    FieldKind fieldKind(const QString &name) const;
    bool isRequired(const QString &name) const;
    // The field's editor: QLineEdit, QCheckBox, QComboBox or (Json) QPlainTextEdit.
    QWidget *editor(const QString &name) const;

    // The arguments as the form holds them, unset optional fields left out; std::nullopt with
    // `error` saying which field is wrong and what to do when a value is missing or invalid.
    std::optional<QJsonObject> arguments(QString *error) const;
    // What is filled in and valid so far, required fields or not.
    QJsonObject filledIn() const;
    // Shows `arguments` in the fields; refused (false, `error` set) when it has a key the form
    // has no field for, or a value a field cannot show.
    bool setArguments(const QJsonObject &arguments, QString *error);

private:
    struct Field
    {
        QString name;
        FieldKind kind = FieldKind::Text;
        bool required = false;
        QJsonObject schema;
        QWidget *editor = nullptr;
        QLabel *label = nullptr;
        QLabel *jsonError = nullptr; // Json fields: why the text is not JSON
    };

    // The label of a field that shows its name as `shownName`: required ones are marked.
    static QString labelText(const Field &labelled, const QString &shownName);

    void addField(Field field, QFormLayout *layout);
    const Field *field(const QString &name) const;
    // std::nullopt: unset; `error` set when the text cannot be a value of the field.
    std::optional<QJsonValue> valueOf(const Field &field, QString *error) const;
    bool show(const Field &field, const QJsonValue &value);
    void checkJson(const Field &field) const;

    QList<Field> m_fields;
};

} // namespace Tether
