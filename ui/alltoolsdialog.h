#pragma once

#include "supervisor/serverstate.h"
#include "supervisor/toolregistry.h"

#include <QDialog>
#include <QHash>
#include <QList>
#include <QStringList>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace Tether {

class ToolListModel;

// All tools: every tool of every server in one list (name, server, state, description and the
// rest of a tool's row), searched by any of them as the user types. From it a tool is called
// (Call…, or a double click) or hidden from AI clients (its check box, the gateway's per-tool
// switch). The window feeds it snapshots while it is open and does what it asks.
class AllToolsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AllToolsDialog)

public:
    explicit AllToolsDialog(QWidget *parent = nullptr);

    // Replaces the list; the picked tool stays picked while it is listed.
    void setTools(const QList<RegisteredTool> &tools);
    void setServerStates(const QHash<QString, ServerState> &states);
    // See ToolListModel.
    void setHiddenTools(const QHash<QString, QStringList> &hiddenByServer);
    void setSwitchable(bool switchable);

    // The public name of the picked tool; empty when none is.
    QString currentTool() const;

signals:
    void callRequested(const QString &publicName);
    void offeredToggled(const QString &server, const QString &tool, bool offered);

private:
    void updateCount();
    void updateCallButton();
    void requestCall();

    ToolListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_search;
    QTreeView *m_view;
    QLabel *m_count;
    QPushButton *m_call;
};

} // namespace Tether
