#pragma once

#include "protocol/mcptypes.h"

#include <QList>
#include <QString>
#include <QWidget>

class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace Tether {

class ServerSource;
struct ServerCatalog;

// The Prompts tab: the selected server's prompts as last listed (its catalog snapshot), a field
// for each argument of the chosen one, and the messages prompts/get returns for them.
class PromptsView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PromptsView)

public:
    explicit PromptsView(ServerSource &manager, QWidget *parent = nullptr);
    ~PromptsView() override;

    // Shows this server's prompts; empty: none.
    void setServer(const QString &name);

private:
    void showCatalog(const ServerCatalog &catalog);
    void choosePrompt(const QString &name);
    void get();

    ServerSource &m_manager;
    QString m_server;
    QList<PromptDefinition> m_prompts;
    std::optional<PromptDefinition> m_chosen;
    quint64 m_gets = 0; // gets started: only the answer to the last one is shown
    QLabel *m_status;
    QTreeWidget *m_list;
    QLabel *m_description;
    QFormLayout *m_form;
    QList<QLineEdit *> m_fields; // one per argument of the chosen prompt, in its order
    QPushButton *m_get;
    QLabel *m_message;
    QPlainTextEdit *m_messages;
};

} // namespace Tether
