#include "catalogtabs.h"

#include "promptsview.h"
#include "resourcesview.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

void addCatalogTabs(QTabWidget *tabs, ServerSource &manager, QItemSelectionModel *selection, int nameRole)
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

QVBoxLayout *layOutCatalogView(QWidget *view, QLabel *status, QTreeWidget *list)
{
    status->setWordWrap(true);
    list->setRootIsDecorated(false);
    list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *left = new QWidget(view);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(status);
    leftLayout->addWidget(list);
    auto *right = new QWidget(view);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *splitter = new QSplitter(view);
    splitter->addWidget(left);
    splitter->addWidget(right);
    auto *layout = new QVBoxLayout(view);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    return rightLayout;
}

QString catalogStatus(const CatalogListing &listing, const QString &kind, const QString &counted)
{
    if (!listing.serverSelected)
        return QObject::tr("No server selected.");
    // A catalog neither offered nor listed is one of a server that is not connected.
    if (!listing.listed && !listing.offered)
        return QObject::tr("%1 are listed once the server has connected.").arg(kind.left(1).toUpper() + kind.mid(1));
    if (!listing.offered)
        return QObject::tr("This server offers no %1.").arg(kind);
    if (!listing.error.isEmpty())
        return QObject::tr("Could not list the %1: %2").arg(kind, listing.error);
    if (!listing.listed)
        return QObject::tr("Listing the %1…").arg(kind);
    return counted;
}

} // namespace Tether
