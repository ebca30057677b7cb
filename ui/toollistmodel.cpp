#include "toollistmodel.h"

#include "messagelabel.h"

#include "common/jsontext.h"

#include <QJsonArray>
#include <QPalette>

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
    const QList<std::pair<QString, QString>> hints{{u"readOnlyHint"_s, ToolListModel::tr("read-only")},
                                                   {u"destructiveHint"_s, ToolListModel::tr("destructive")},
                                                   {u"idempotentHint"_s, ToolListModel::tr("idempotent")},
                                                   {u"openWorldHint"_s, ToolListModel::tr("open world")}};
    QStringList parts;
    for (const auto &[key, text] : hints) {
        if (annotations.value(key).toBool())
            parts.append(text);
    }
    return parts.join(u", "_s);
}

QVariant displayText(const RegisteredTool &tool, int column)
{
    const ToolDefinition &definition = tool.definition;
    switch (column) {
    case ToolListModel::Name: return definition.name;
    case ToolListModel::PublicName: return tool.publicName;
    case ToolListModel::Description: return definition.description.section(u'\n', 0, 0);
    case ToolListModel::Parameters: return parameterSummary(definition.inputSchema());
    case ToolListModel::Annotations: return annotationSummary(definition.annotations());
    default: return {};
    }
}

QVariant toolTip(const RegisteredTool &tool, int column)
{
    const ToolDefinition &definition = tool.definition;
    switch (column) {
    case ToolListModel::Name:
        return tool.available ? QVariant() : ToolListModel::tr("Unavailable while the server reconnects");
    case ToolListModel::Description: return plainToolTip(definition.description);
    case ToolListModel::Parameters: return plainToolTip(jsonText(definition.inputSchema(), QJsonDocument::Indented));
    case ToolListModel::Annotations: {
        const QJsonObject annotations = definition.annotations();
        return annotations.isEmpty() ? QVariant() : plainToolTip(jsonText(annotations, QJsonDocument::Indented));
    }
    default: return {};
    }
}

} // namespace

ToolListModel::ToolListModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void ToolListModel::setTools(const QList<RegisteredTool> &tools)
{
    beginResetModel();
    m_tools = tools;
    endResetModel();
}

int ToolListModel::rowOf(const QString &publicName, int hint) const
{
    if (hint >= 0 && hint < m_tools.size() && m_tools.at(hint).publicName == publicName)
        return hint;
    for (int row = 0; row < m_tools.size(); ++row) {
        if (m_tools.at(row).publicName == publicName)
            return row;
    }
    return -1;
}

int ToolListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_tools.size());
}

int ToolListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ToolListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RegisteredTool &tool = m_tools.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return displayText(tool, index.column());
    case Qt::ToolTipRole: return toolTip(tool, index.column());
    case Qt::ForegroundRole: return tool.available ? QVariant() : QPalette().brush(QPalette::Disabled, QPalette::Text);
    case PublicNameRole: return tool.publicName;
    default: return {};
    }
}

QVariant ToolListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Tool");
    case PublicName: return tr("Public name");
    case Description: return tr("Description");
    case Parameters: return tr("Parameters");
    case Annotations: return tr("Annotations");
    default: return {};
    }
}

Qt::ItemFlags ToolListModel::flags(const QModelIndex &index) const
{
    const Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    return index.isValid() ? flags | Qt::ItemNeverHasChildren : flags;
}

} // namespace Tether
