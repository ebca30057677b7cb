#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QWidget>

#include <optional>

class QFormLayout;
class QLabel;

namespace Tether {

// A form for the arguments of one tool, generated from its input schema (JSON Schema, as MCP
// tools carry it), and for what a server asks the user in an elicitation (the flat subset MCP
// allows there): a line edit for strings (checked against their format and length), numbers and
// integers, a check box for booleans (three states when optional, so an unset field is left out),
// a combo box for a choice of one (enum, titled with enumNames, or oneOf/anyOf of consts), a list
// of check boxes for a choice of several (an array of such items), and a JSON editor for anything
// else (objects, other arrays, anyOf of types …). Defaults are filled in, required fields are
// marked with '*', titles name the fields, descriptions become tool tips and help text.
class SchemaForm final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SchemaForm)

public:
    enum class FieldKind { Text, Number, Integer, Boolean, Enum, MultipleChoice, Json };

    // `noFieldsText` is shown when the schema has no properties (a tool's wording by default).
    explicit SchemaForm(const QJsonObject &inputSchema, QWidget *parent = nullptr, const QString &noFieldsText = {});

    // Gives each field's label a mnemonic (Alt+letter) of its own, none of those in `taken`: the
    // letters of the dialog around the form. Until then the labels have none.
    void assignMnemonics(QString taken);

    // Required fields first, in the schema's order, then the others by name.
    QStringList fieldNames() const;
    FieldKind fieldKind(const QString &name) const;
    bool isRequired(const QString &name) const;
    // The field's editor: QLineEdit, QCheckBox, QComboBox, (MultipleChoice) QListWidget of
    // checkable items or (Json) QPlainTextEdit.
    QWidget *editor(const QString &name) const;
    // The label under the field's editor that says what is wrong with its value, hidden when nothing is.
    QLabel *problemLabel(const QString &name) const;

    // The arguments as the form holds them, unset optional fields left out; std::nullopt with
    // `error` saying which field is wrong and what to do when a value is missing or invalid.
    std::optional<QJsonObject> arguments(QString *error) const;
    // The same, and each field's problem is shown under it until the field is edited.
    std::optional<QJsonObject> checkedArguments(QString *error);
    // What is filled in and valid so far, required fields or not.
    QJsonObject filledIn() const;
    // Shows `arguments` in the fields; refused (false, `error` set) when it has a key the form
    // has no field for, or a value a field cannot show.
    bool setArguments(const QJsonObject &arguments, QString *error);

private:
    // One option of a choice: the value sent, and how the form shows it.
    struct Choice
    {
        QJsonValue value;
        QString title;
    };

    struct Field
    {
        QString name;
        FieldKind kind = FieldKind::Text;
        bool required = false;
        QJsonObject schema;
        QList<Choice> choices; // Enum and MultipleChoice
        QWidget *editor = nullptr;
        QLabel *label = nullptr;
        QLabel *problem = nullptr; // what is wrong with the value (Json: as it is typed)

        // How the form and its messages name the field: its title, or its name without one.
        QString shownName() const;
    };

    static FieldKind kindOf(const QJsonObject &schema);
    static QList<Choice> choicesOf(const QJsonObject &schema);
    // The label of a field shown as `shownName`: required ones are marked.
    static QString labelText(const Field &labelled, const QString &shownName);

    void addField(Field field, QFormLayout *layout);
    QWidget *newEditor(Field &field, QWidget *container);
    // Hides the field's problem once the person changes its value.
    void clearProblemOnEdit(const Field &field);
    const Field *field(const QString &name) const;
    // std::nullopt: unset; `error` set when the text cannot be a value of the field.
    std::optional<QJsonValue> valueOf(const Field &field, QString *error) const;
    // Unset is a problem of a required field only.
    std::optional<QJsonValue> checkedValueOf(const Field &field, QString *error) const;
    bool show(const Field &field, const QJsonValue &value);
    void checkJson(const Field &field) const;

    QList<Field> m_fields;
};

} // namespace Tether
