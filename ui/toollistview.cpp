#include "toollistview.h"

#include "messagelabel.h"

#include "common/jsontext.h"
#include "supervisor/toolregistry.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// "message: string, count?: integer, style?: plain|fancy": a tool's parameters at a glance,
// required ones first; optional ones carry a question mark.
QString parameterSummary(const QJsonObject &inputSchema)
{
    QStringList parts;
    for (const ToolParameter &parameter : toolParameters(inputSchema)) {
        QString type = parameter.schema.value(u"type"_s).toString(u"any"_s);
        if (const QJsonArray choices = parameter.schema.value(u"enum"_s).toArray(); !choices.isEmpty()) {
            QStringList values;
            for (const QJsonValue &choice : choices)
                values.append(fieldText(choice));
            type = values.join(u'|');
        }
        parts.append(parameter.name + (parameter.required ? u""_s : u"?"_s) + u": "_s + type);
    }
    return parts.join(u", "_s);
}

// "read-only, idempotent": the hints a tool's annotations give.
QString annotationSummary(const QJsonObject &annotations)
{
    const QList<std::pair<QString, QString>> hints{{u"readOnlyHint"_s, ToolListView::tr("read-only")},
                                                   {u"destructiveHint"_s, ToolListView::tr("destructive")},
                                                   {u"idempotentHint"_s, ToolListView::tr("idempotent")},
                                                   {u"openWorldHint"_s, ToolListView::tr("open world")}};
    QStringList parts;
    for (const auto &[key, text] : hints) {
        if (annotations.value(key).toBool())
            parts.append(text);
    }
    return parts.join(u", "_s);
}

} // namespace

ToolListView::ToolListView(QWidget *parent)
    : QTreeWidget(parent)
{
    setHeaderLabels({tr("Tool"), tr("Public name"), tr("Description"), tr("Parameters"), tr("Annotations")});
    setRootIsDecorated(false);
    for (const auto &[column, characters] : {std::pair{0, 14}, {1, 22}, {2, 48}, {3, 30}})
        setColumnWidth(column, fontMetrics().averageCharWidth() * characters);
}

void ToolListView::setTools(const QList<RegisteredTool> &tools)
{
    const QString picked = currentTool();
    clear();
    for (const RegisteredTool &tool : tools) {
        const QJsonObject annotations = tool.definition.raw().value(u"annotations"_s).toObject();
        auto *item = new QTreeWidgetItem(this, {tool.definition.name, tool.publicName,
                                                tool.definition.description.section(u'\n', 0, 0),
                                                parameterSummary(tool.definition.inputSchema()),
                                                annotationSummary(annotations)});
        item->setData(0, Qt::UserRole, tool.publicName);
        if (tool.publicName == picked)
            setCurrentItem(item);
        item->setToolTip(2, plainToolTip(tool.definition.description));
        item->setToolTip(3, plainToolTip(jsonText(tool.definition.inputSchema(), QJsonDocument::Indented)));
        if (!annotations.isEmpty())
            item->setToolTip(4, plainToolTip(jsonText(annotations, QJsonDocument::Indented)));
        if (!tool.available) {
            for (int column = 0; column < columnCount(); ++column)
                item->setForeground(column, palette().brush(QPalette::Disabled, QPalette::Text));
            item->setToolTip(0, tr("Unavailable while the server reconnects"));
        }
    }
}

QString ToolListView::currentTool() const
{
    return currentItem() ? currentItem()->data(0, Qt::UserRole).toString() : QString();
}

} // namespace Tether
