#pragma once

#include "fieldmessage.h"

#include "config/configcontext.h"
#include "config/serverconfig.h"

#include <QDialog>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace Tether {

class NameValueEditor;
struct ServerEntryFields;

// Adds a server or edits one. buildServerEntry makes the entry from the fields, and it is judged
// exactly as the config file is: parseConfig reads it in a one-server document with the config's
// defaults and the program's context. Its messages, in the words of the form's labels, fill a
// message area of fixed height under the fields, so that no field moves as they come and go.
// A new server's fields are judged once they have been changed: an untouched form shows a plain
// hint of what to fill in, not errors. Add (OK) stays disabled while anything is wrong.
// The dialog edits nothing itself: the caller writes serverName() and serverEntry() into the config.
class ServerDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerDialog)

public:
    // What a message concerns; Other is the rest of the entry (its policies, say).
    enum class Field { Name, Transport, Command, Arguments, Environment, WorkingDirectory, Url, Headers, Timeout, Enabled, Other };

    // `editedServer` empty: a new server. Editing starts from the server's entry as written in the
    // file and keeps every key the dialog does not show (reconnect, heartbeat, pool, unknown keys).
    ServerDialog(const ConfigDocument &document, const QString &editedServer, const ConfigContext &context,
                 QWidget *parent = nullptr);

    QString serverName() const;
    QJsonObject serverEntry() const { return m_entry; }
    // The messages shown about `field`.
    QStringList messages(Field field) const { return m_messages.value(field); }
    bool isEntryValid() const { return m_problems.isEmpty(); }

private:
    // A row of the form: `row` holds `field`, which the label's mnemonic reaches; messages about
    // `which` name it by the label.
    void addRow(const QString &labelText, QWidget *field, Field which, QWidget *row = nullptr);
    QList<FieldLabel> fieldLabels() const;
    TransportKind currentTransport() const;
    void load(const ServerConfig &server);
    void showTransportFields();
    void validate();
    ServerEntryFields enteredFields() const;
    Field fieldOf(const QString &message) const;
    void browseWorkingDirectory();

    ConfigDocument m_document;
    QString m_editedServer;
    ConfigContext m_context;
    QString m_serversKey;
    QStringList m_existingNames;
    QJsonObject m_original;
    TransportKind m_originalTransport = TransportKind::Stdio;
    QJsonObject m_entry;
    QMap<Field, QStringList> m_problems; // everything wrong with the entry
    QMap<Field, QStringList> m_messages; // what is shown of it: nothing about a new server's untouched fields
    QMap<Field, QString> m_labels;
    QSet<Field> m_untouched;

    QFormLayout *m_form;
    QLineEdit *m_name;
    QComboBox *m_transport;
    QLineEdit *m_command;
    QLineEdit *m_arguments;
    NameValueEditor *m_environment;
    QLineEdit *m_workingDirectory;
    QLineEdit *m_url;
    NameValueEditor *m_headers;
    QLineEdit *m_timeout;
    QCheckBox *m_enabled;
    QLabel *m_messageText;
    QLabel *m_hint;
    QDialogButtonBox *m_buttons;
    QList<QWidget *> m_stdioRows;
    QList<QWidget *> m_remoteRows;
};

} // namespace Tether
