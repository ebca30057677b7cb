#pragma once

#include "config/configcontext.h"
#include "config/serverconfig.h"

#include <QDialog>
#include <QJsonObject>
#include <QMap>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;

namespace Tether {

class NameValueEditor;
struct ServerEntryFields;

// Adds a server or edits one. buildServerEntry makes the entry from the fields, and it is judged
// exactly as the config file is: parseConfig reads it in a one-server document with the config's
// defaults and the program's context, and each message appears next to the field it names. OK
// stays disabled while any message is shown.
// The dialog edits nothing itself: the caller writes serverName() and serverEntry() into the config.
class ServerDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerDialog)

public:
    // Where a message is shown; Other is the list under the fields.
    enum class Field { Name, Transport, Command, Arguments, Environment, WorkingDirectory, Url, Headers, Timeout, Enabled, Other };

    // `editedServer` empty: a new server. Editing starts from the server's entry as written in the
    // file and keeps every key the dialog does not show (reconnect, heartbeat, pool, unknown keys).
    ServerDialog(const ConfigDocument &document, const QString &editedServer, const ConfigContext &context,
                 QWidget *parent = nullptr);

    QString serverName() const;
    QJsonObject serverEntry() const { return m_entry; }
    QStringList messages(Field field) const { return m_messages.value(field); }
    bool isEntryValid() const { return m_messages.isEmpty(); }

private:
    // The field with its message label under it; the label is named after the field, or `name`.
    QWidget *withMessage(QWidget *field, Field which, const QString &name = QString());
    // A row of the form: `row` holds `field`, which the label's mnemonic reaches.
    void addRow(const QString &labelText, QWidget *field, QWidget *row);
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
    QMap<Field, QStringList> m_messages;
    QMap<Field, QLabel *> m_messageLabels;

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
    QListWidget *m_otherProblems;
    QDialogButtonBox *m_buttons;
    QList<QWidget *> m_stdioRows;
    QList<QWidget *> m_remoteRows;
};

} // namespace Tether
