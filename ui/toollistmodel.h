#pragma once

#include "supervisor/serverstate.h"
#include "supervisor/toolregistry.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QStringList>

namespace Tether {

// Tools as rows (one server's in its Tools tab, every server's in All tools): name, public name,
// the first line of the description, the parameters and annotations at a glance (the full texts
// in tool tips), the server and its state; a tool that cannot be called while its server
// reconnects is greyed. The name's check box says whether the gateway
// offers the tool to AI clients: a hidden tool stays listed, greyed and marked hidden. Texts are made when a row is drawn, so a server
// with tens of thousands of tools costs only the rows on screen.
class ToolListModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolListModel)

public:
    enum Column { Name, PublicName, Description, Parameters, Annotations, Server, State, ColumnCount };
    enum Role { PublicNameRole = Qt::UserRole + 1, ServerRole };

    explicit ToolListModel(QObject *parent = nullptr);

    const QList<RegisteredTool> &tools() const { return m_tools; }
    void setTools(const QList<RegisteredTool> &tools);
    // The tools the gateway does not offer, by server, by the server's own names (its "tools.disabled").
    void setHiddenTools(const QHash<QString, QStringList> &hiddenByServer);
    // The state of each server, for the State column.
    void setServerStates(const QHash<QString, ServerState> &states);
    // Whether the check boxes can be changed: the tools are those of a server of a config that loaded.
    void setSwitchable(bool switchable);
    // Whether the tool of `row` can be called now: its server is connected (when states are given)
    // and it is not waiting for the server to reconnect.
    bool isCallable(int row) const;
    // The row of a tool by its public name; -1 when it is not listed. `hint`: where it may be.
    int rowOf(const QString &publicName, int hint = -1) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    // A check box changed by the user: asks, through offeredToggled, for the config to be saved;
    // the row follows when setHiddenTools brings the saved list.
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

signals:
    void offeredToggled(const QString &server, const QString &tool, bool offered);

private:
    bool isHidden(const RegisteredTool &tool) const
    {
        return m_hidden.value(tool.serverName).contains(tool.definition.name);
    }
    QVariant displayText(const RegisteredTool &tool, int column) const;
    void columnChanged(int first, int last = -1);

    QList<RegisteredTool> m_tools;
    QHash<QString, QStringList> m_hidden;
    QHash<QString, ServerState> m_states;
    bool m_switchable = false;
};

} // namespace Tether
