#pragma once

#include <QList>
#include <QTreeWidget>

namespace Tether {

struct RegisteredTool;

// The Tools tab: one server's tools, each with its public name, the first line of its
// description, its parameters and annotations at a glance (the full texts in tool tips); a tool
// that cannot be called while its server reconnects is greyed.
class ToolListView final : public QTreeWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolListView)

public:
    explicit ToolListView(QWidget *parent = nullptr);

    // Replaces the list; the tool the user picked stays picked when it is still there.
    void setTools(const QList<RegisteredTool> &tools);
    // The public name of the picked tool; empty when none is.
    QString currentTool() const;
};

} // namespace Tether
