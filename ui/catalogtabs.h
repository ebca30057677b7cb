#pragma once

class QItemSelectionModel;
class QTabWidget;

namespace Tether {

class ServerManager;

// Adds the Resources and Prompts tabs to `tabs`; they show the server of the first row that
// `selection` selects, its name in `nameRole`.
void addCatalogTabs(QTabWidget *tabs, ServerManager &manager, QItemSelectionModel *selection, int nameRole);

} // namespace Tether
