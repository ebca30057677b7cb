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

QVariant toolTip(const RegisteredTool &tool, int column, bool hidden)
{
    const ToolDefinition &definition = tool.definition;
    switch (column) {
    case ToolListModel::Name:
        if (!tool.available)
            return ToolListModel::tr("Unavailable while the server reconnects");
        return hidden ? ToolListModel::tr("Hidden: AI clients connected to Tether do not see it; it can still be called "
                                          "here. Check it to offer it to them.")
                      : QVariant();
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

QVariant ToolListModel::displayText(const RegisteredTool &tool, int column) const
{
    const ToolDefinition &definition = tool.definition;
    switch (column) {
    case Name: return definition.name;
    case PublicName: return isHidden(tool) ? tr("%1 (hidden)").arg(tool.publicName) : tool.publicName;
    case Description: return definition.description.section(u'\n', 0, 0);
    case Parameters: return parameterSummary(definition.inputSchema());
    case Annotations: return annotationSummary(definition.annotations());
    case Server: return tool.serverName;
    case State: {
        const auto state = m_states.constFind(tool.serverName);
        return state == m_states.cend() ? QVariant() : stateName(*state);
    }
    default: return {};
    }
}

void ToolListModel::columnChanged(int first, int last)
{
    if (!m_tools.isEmpty())
        emit dataChanged(index(0, first), index(rowCount() - 1, last < 0 ? first : last));
}

ToolListModel::ToolListModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void ToolListModel::setTools(const QList<RegisteredTool> &tools)
{
    beginResetModel();
    m_tools = tools;
    endResetModel();
}

void ToolListModel::setHiddenTools(const QHash<QString, QStringList> &hiddenByServer)
{
    if (hiddenByServer == m_hidden)
        return;
    m_hidden = hiddenByServer;
    columnChanged(Name, ColumnCount - 1);
}

void ToolListModel::setServerStates(const QHash<QString, ServerState> &states)
{
    if (states == m_states)
        return;
    m_states = states;
    columnChanged(State);
}

void ToolListModel::setSwitchable(bool switchable)
{
    if (switchable == m_switchable)
        return;
    m_switchable = switchable;
    columnChanged(Name);
}

bool ToolListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || index.column() != Name
        || role != Qt::CheckStateRole || !m_switchable)
        return false;
    const RegisteredTool &tool = m_tools.at(index.row());
    const bool offered = value.value<Qt::CheckState>() == Qt::Checked;
    if (offered == !isHidden(tool))
        return false;
    emit offeredToggled(tool.serverName, tool.definition.name, offered);
    return true;
}

bool ToolListModel::isCallable(int row) const
{
    if (row < 0 || row >= m_tools.size())
        return false;
    const RegisteredTool &tool = m_tools.at(row);
    const auto state = m_states.constFind(tool.serverName);
    return tool.available && (state == m_states.cend() || *state == ServerState::Connected);
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
    case Qt::ToolTipRole: return toolTip(tool, index.column(), isHidden(tool));
    case Qt::CheckStateRole:
        return index.column() == Name ? QVariant(isHidden(tool) ? Qt::Unchecked : Qt::Checked) : QVariant();
    case Qt::ForegroundRole:
        return tool.available && !isHidden(tool) ? QVariant() : QPalette().brush(QPalette::Disabled, QPalette::Text);
    case PublicNameRole: return tool.publicName;
    case ServerRole: return tool.serverName;
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
    case Server: return tr("Server");
    case State: return tr("State");
    default: return {};
    }
}

Qt::ItemFlags ToolListModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Name && m_switchable)
        flags |= Qt::ItemIsUserCheckable;
    return index.isValid() ? flags | Qt::ItemNeverHasChildren : flags;
}

} // namespace Tether
