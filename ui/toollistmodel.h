#pragma once

#include "supervisor/toolregistry.h"

#include <QAbstractTableModel>
#include <QList>
#include <QStringList>

namespace Tether {

// One server's tools as rows: name, public name, the first line of the description, the
// parameters and annotations at a glance (the full texts in tool tips); a tool that cannot be
// called while its server reconnects is greyed. The name's check box says whether the gateway
// offers the tool to AI clients: a hidden tool stays listed, greyed and marked hidden. Texts are made when a row is drawn, so a server
// with tens of thousands of tools costs only the rows on screen.
class ToolListModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolListModel)

public:
    enum Column { Name, PublicName, Description, Parameters, Annotations, ColumnCount };
    enum Role { PublicNameRole = Qt::UserRole + 1 };

    explicit ToolListModel(QObject *parent = nullptr);

    const QList<RegisteredTool> &tools() const { return m_tools; }
    void setTools(const QList<RegisteredTool> &tools);
    // The tools the gateway does not offer, by the server's own names (its "tools.disabled").
    void setHiddenTools(const QStringList &hidden);
    // Whether the check boxes can be changed: the tools are those of a server of a config that loaded.
    void setSwitchable(bool switchable);
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
    void offeredToggled(const QString &tool, bool offered);

private:
    bool isHidden(const RegisteredTool &tool) const { return m_hidden.contains(tool.definition.name); }

    QList<RegisteredTool> m_tools;
    QStringList m_hidden;
    bool m_switchable = false;
};

} // namespace Tether
