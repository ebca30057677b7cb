#pragma once

#include "supervisor/toolregistry.h"

#include <QHash>
#include <QList>
#include <QTreeView>

namespace Tether {

class ToolListModel;

// The Tools tab: one server's tools (ToolListModel), one row each.
class ToolListView final : public QTreeView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolListView)

public:
    explicit ToolListView(QWidget *parent = nullptr);
    ~ToolListView() override;

    // Replaces the list; the tool the user picked stays picked when it is still there.
    void setTools(const QList<RegisteredTool> &tools);
    // The public name of the picked tool; empty when none is.
    QString currentTool() const;
    // The tools the gateway does not offer (see ToolListModel), and whether their switches work.
    void setHiddenTools(const QHash<QString, QStringList> &hiddenByServer);
    void setSwitchable(bool switchable);

signals:
    void currentToolChanged();
    // The user checked (offered) or unchecked (hid) a tool, by the server's own name.
    void offeredToggled(const QString &server, const QString &tool, bool offered);

private:
    ToolListModel *m_model;
};

// Widens the name columns of `view` (a ToolListModel's, or a proxy of one) to the longest
// names of `tools`, within reason, so that names read whole. Only the longest names by
// characters are measured: a list of 50,000 tools costs no more than a scan of its names.
void widenToolNameColumns(QTreeView *view, const QList<RegisteredTool> &tools);

} // namespace Tether
