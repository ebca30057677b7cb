#pragma once

#include <QString>

class QItemSelectionModel;
class QLabel;
class QTabWidget;
class QTreeWidget;
class QVBoxLayout;
class QWidget;

namespace Tether {

class ServerSource;

// Adds the Resources and Prompts tabs to `tabs`; they show the server of the first row that
// `selection` selects, its name in `nameRole`.
void addCatalogTabs(QTabWidget *tabs, ServerSource &manager, QItemSelectionModel *selection, int nameRole);

// Shared by the two tabs. Lays `view` out as `list` under its `status` line, beside a detail
// pane; returns the detail pane's layout, to be filled.
QVBoxLayout *layOutCatalogView(QWidget *view, QLabel *status, QTreeWidget *list);

// How far one list of a server's catalog is known.
struct CatalogListing
{
    bool serverSelected = false;
    bool offered = false;
    bool listed = false;
    QString error;
};
// The status line of a list of `kind` ("resources", "prompts"); `counted` once it is listed.
QString catalogStatus(const CatalogListing &listing, const QString &kind, const QString &counted);

} // namespace Tether
