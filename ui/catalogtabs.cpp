#include "catalogtabs.h"

#include "promptsview.h"
#include "resourcesview.h"

#include <QItemSelectionModel>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace Tether {

void addCatalogTabs(QTabWidget *tabs, ServerManager &manager, QItemSelectionModel *selection, int nameRole)
{
    auto *resources = new ResourcesView(manager, tabs);
    auto *prompts = new PromptsView(manager, tabs);
    resources->setObjectName(u"resources"_s);
    prompts->setObjectName(u"prompts"_s);
    tabs->addTab(resources, QObject::tr("Resources"));
    tabs->addTab(prompts, QObject::tr("Prompts"));
    QObject::connect(selection, &QItemSelectionModel::selectionChanged, resources, [selection, nameRole, resources, prompts] {
        const QModelIndexList rows = selection->selectedRows();
        const QString name = rows.isEmpty() ? QString() : rows.first().data(nameRole).toString();
        resources->setServer(name);
        prompts->setServer(name);
    });
}

} // namespace Tether
