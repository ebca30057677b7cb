#pragma once

#include "config/serverconfig.h"

#include <QDialog>
#include <QJsonObject>

#include <array>
#include <functional>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace Tether {

class BackoffChart;

// The reconnect and heartbeat policies of a config: the global defaults (`defaults`) and each
// server's own override. Delays and times are written as people write durations ("500 ms",
// "2 s", "1.5 s", "1 min"; a number alone counts milliseconds) and shown back that way; the file
// keeps milliseconds. Every field is judged live by resolveReconnectPolicy and
// resolveHeartbeatPolicy, the same judges as the config file's; a rejected value is marked, its
// message shown in its section's message area (of a fixed height, so that nothing moves while
// typing), and Save stays disabled while any is shown. Edited defaults are also judged under
// every server's own settings: one they would make invalid is named, with why, and Save waits
// until the defaults or that server's settings change. A server either uses the global defaults
// (one check box, "Use the global defaults") or has its own policy, written whole to the file.
//
// Only what the user changed is written, through configedit; the rest of the file is kept, and
// editedRoot() is the document's root itself when nothing changed. Wiring, from the window:
//
//     SettingsDialog dialog(document, selectedServer(), this);
//     if (dialog.exec() == QDialog::Accepted && dialog.editedRoot() != document.root)
//         save(dialog.editedRoot());
//
// or, so that a failed save keeps the dialog open with its error and the edits, hand the save
// to the dialog with setSaveFunction(). The running servers take a policy change from the reload
// of the saved file, without a restart.
//
// Its parts are named after the config's paths: the field "reconnect.initialDelayMs" with its
// message "reconnect.initialDelayMsMessage", the check box "reconnect.enabled", the figures
// "reconnect.summary", the section's message area "reconnect.messages" with the servers the
// edited defaults would break in "reconnect.conflicts"; "useDefaults" is the server's choice.
class SettingsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)

public:
    using SaveFunction = std::function<bool(const QJsonObject &root, QString *error)>;

    // `document` should be valid (a file that cannot be used has no policies to show: its errors
    // are shown instead). Opens on `initialServer`'s settings when it names a server, else on the
    // global defaults.
    explicit SettingsDialog(const ConfigDocument &document, const QString &initialServer = {},
                            QWidget *parent = nullptr);

    // With it, Save writes a changed root through `save` and closes only once that succeeded;
    // otherwise the error it gives is shown in the dialog.
    void setSaveFunction(SaveFunction save) { m_save = std::move(save); }

    // The document's root with every change made in the dialog so far.
    QJsonObject editedRoot() const;

private:
    enum SectionId { Reconnect, Heartbeat };
    static constexpr int SectionCount = 2;

    struct Field
    {
        QString name;
        QString label; // how messages name it
        bool isDuration = false; // milliseconds in the file, a duration in the field
        QLineEdit *edit = nullptr;
        QLabel *error = nullptr;
        QAction *marker = nullptr; // in the field while its value is refused
    };

    struct Section
    {
        QString name;
        QGroupBox *box = nullptr;
        QCheckBox *enabled = nullptr;
        QList<Field> fields;
        QLabel *hint = nullptr;        // how to write the values, while nothing is wrong
        QLabel *otherErrors = nullptr; // a message that names no single field
        QLabel *conflicts = nullptr;   // the servers whose own settings the edited defaults would make invalid, and why
        QLabel *summary = nullptr;
        bool invalid = false;
    };

    // The global defaults (no server) or one server, and the policy settings it gives itself.
    struct Scope
    {
        QString server;
        std::array<std::optional<QJsonObject>, SectionCount> own;     // none: it uses the defaults
        std::array<std::optional<QJsonObject>, SectionCount> initial; // as the file has it
    };

    // A policy as JSON, judged by the policy's resolve function.
    struct Judgement
    {
        QJsonObject policy;
        QStringList errors;
    };

    void buildSection(SectionId id, const QString &title, const QString &enabledText,
                      const QList<std::pair<QString, QString>> &fields);
    void showScope(int index);
    void showSection(SectionId id);
    void onFieldEdited(SectionId id);
    void onUseDefaultsToggled(bool useDefaults);
    // A valid duration as typed ("90s") is shown back as the dialog writes it ("1 min 30 s").
    void showDurationWritten(const Field &field);
    void showFieldMessage(SectionId id, const Field &field, const QString &text);
    void restoreDefaults();
    void save();
    // Judges the fields as typed; shows each message under its field. Returns the judgement.
    Judgement judgeFields(SectionId id);
    // The figures of the policy in effect: while a field is invalid, the last valid one, and they say so.
    void updateFigures(SectionId id);
    // A resolver's message in the words of the section's labels, its durations as people write them.
    QString inSectionWords(SectionId id, const QString &message) const;
    // For each section, one message for each server the edited defaults would make invalid under its own settings.
    std::array<QStringList, SectionCount> serversBrokenByDefaults() const;
    void updateHints();
    void updateButtons();

    static Judgement judge(SectionId id, const QString &who, const QJsonObject &input, const QJsonObject &base);
    static QString who(const Scope &scope);
    // The policy a scope's section has with `own` as its own settings: over the built-in
    // defaults for the global scope, over the global defaults as edited for a server.
    QJsonObject resolve(const Scope &scope, SectionId id, const std::optional<QJsonObject> &own) const;
    QJsonObject effective(const Scope &scope, SectionId id) const { return resolve(scope, id, scope.own[id]); }
    Scope &currentScope() { return m_scopes[m_current]; }

    ConfigDocument m_document;
    SaveFunction m_save;
    QList<Scope> m_scopes; // [0] is the global defaults
    int m_current = 0;
    bool m_loading = false;
    std::array<Section, SectionCount> m_sections;
    QComboBox *m_scope;
    QCheckBox *m_useDefaults;
    BackoffChart *m_chart;
    QLabel *m_problem;
    QPushButton *m_saveButton = nullptr;
    QPushButton *m_restoreButton = nullptr;
};

} // namespace Tether
