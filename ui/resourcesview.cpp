#include "resourcesview.h"

#include "catalogtabs.h"
#include "messagelabel.h"

#include "manager/serversource.h"

#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

// The role of an item's URI (or URI template) in the list.
static constexpr int UriRole = Qt::UserRole;

ResourcesView::ResourcesView(ServerSource &manager, QWidget *parent)
    : QWidget(parent)
    , m_manager(manager)
    , m_status(new QLabel(this))
    , m_list(new QTreeWidget(this))
    , m_uri(new QLineEdit(this))
    , m_read(new QPushButton(tr("&Read"), this))
    , m_message(newMessageLabel(this))
    , m_text(new QPlainTextEdit(this))
    , m_image(new QLabel(this))
    , m_imageArea(new QScrollArea(this))
{
    m_status->setObjectName(u"resourcesStatus"_s);
    m_list->setObjectName(u"resourceList"_s);
    m_list->setHeaderLabels({tr("Name"), tr("URI"), tr("Type")});
    m_uri->setObjectName(u"resourceUri"_s);
    m_uri->setPlaceholderText(tr("URI to read; a template's {placeholders} filled in"));
    m_read->setObjectName(u"readResource"_s);
    m_message->setObjectName(u"resourceMessage"_s);
    m_text->setObjectName(u"resourceText"_s);
    m_text->setReadOnly(true);
    m_image->setObjectName(u"resourceImage"_s);
    m_image->setAlignment(Qt::AlignCenter);
    m_imageArea->setWidget(m_image);
    m_imageArea->setWidgetResizable(true);

    QVBoxLayout *detail = layOutCatalogView(this, m_status, m_list);
    auto *uriRow = new QHBoxLayout;
    uriRow->addWidget(m_uri);
    uriRow->addWidget(m_read);
    detail->addLayout(uriRow);
    detail->addWidget(m_message);
    detail->addWidget(m_text, 1);
    detail->addWidget(m_imageArea, 1);
    clearPreview();
    setServer({});

    connect(&m_manager, &ServerSource::catalogChanged, this, [this](const QString &name) {
        if (name == m_server)
            showCatalog(m_manager.catalog(name));
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            m_uri->setText(item->data(0, UriRole).toString());
    });
    // A fixed resource is read at once; a template waits for its placeholders.
    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        if (!item->data(0, UriRole).toString().contains(u'{'))
            read();
    });
    connect(m_read, &QPushButton::clicked, this, &ResourcesView::read);
    connect(m_uri, &QLineEdit::returnPressed, this, &ResourcesView::read);
    connect(m_uri, &QLineEdit::textChanged, this, [this] { m_read->setEnabled(!m_server.isEmpty() && !m_uri->text().trimmed().isEmpty()); });
}

ResourcesView::~ResourcesView() = default;

void ResourcesView::setServer(const QString &name)
{
    if (name == m_server && !name.isEmpty())
        return;
    m_server = name;
    ++m_reads; // an answer for the previous server is not shown
    m_uri->clear();
    clearPreview();
    showCatalog(name.isEmpty() ? ServerCatalog{} : m_manager.catalog(name));
}

void ResourcesView::showCatalog(const ServerCatalog &catalog)
{
    const QString current = m_list->currentItem() ? m_list->currentItem()->data(0, UriRole).toString() : QString();
    m_list->clear();
    for (const ResourceDefinition &resource : catalog.resources) {
        auto *item = new QTreeWidgetItem(m_list, {resource.title.isEmpty() ? resource.name : resource.title,
                                                  resource.uri, resource.mimeType});
        item->setData(0, UriRole, resource.uri);
        item->setToolTip(0, plainToolTip(resource.description));
    }
    for (const ResourceTemplate &resourceTemplate : catalog.templates) {
        const QString type = resourceTemplate.mimeType.isEmpty() ? tr("template")
                                                                 : tr("template, %1").arg(resourceTemplate.mimeType);
        auto *item = new QTreeWidgetItem(m_list, {resourceTemplate.title.isEmpty() ? resourceTemplate.name
                                                                                   : resourceTemplate.title,
                                                  resourceTemplate.uriTemplate, type});
        item->setData(0, UriRole, resourceTemplate.uriTemplate);
        item->setToolTip(0, plainToolTip(resourceTemplate.description));
    }
    for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
        if (m_list->topLevelItem(row)->data(0, UriRole).toString() == current)
            m_list->setCurrentItem(m_list->topLevelItem(row));
    }

    const QString counted =
        (catalog.resources.size() == 1 ? tr("1 resource") : tr("%1 resources").arg(catalog.resources.size()))
        + (catalog.templates.size() == 1 ? tr(", 1 template") : tr(", %1 templates").arg(catalog.templates.size()));
    m_status->setText(catalogStatus({!m_server.isEmpty(), catalog.offersResources, catalog.resourcesListed,
                                     catalog.resourcesError},
                                    tr("resources"), counted));
    m_read->setEnabled(!m_server.isEmpty() && !m_uri->text().trimmed().isEmpty());
}

void ResourcesView::read()
{
    const QString uri = m_uri->text().trimmed();
    if (m_server.isEmpty() || uri.isEmpty())
        return;
    if (uri.contains(u'{')) {
        showMessage(m_message, tr("Fill in the {placeholders} of the template first."));
        return;
    }
    const quint64 readNumber = ++m_reads;
    showMessage(m_message, {});
    m_text->setPlainText(tr("Reading %1…").arg(uri));
    m_text->show();
    const QPointer<ResourcesView> guard(this);
    m_manager.readResource(m_server, uri, [this, guard, readNumber](const ResourceReadReply &reply) {
        if (!guard || readNumber != m_reads)
            return;
        if (reply.error) {
            clearPreview();
            showMessage(m_message, reply.error->message);
            return;
        }
        showContents(reply.contents);
    });
}

void ResourcesView::showContents(const QList<ResourceContents> &contents)
{
    clearPreview();
    QStringList texts;
    for (const ResourceContents &part : contents) {
        if (part.isImage() && m_image->pixmap().isNull()) {
            const QImage image = QImage::fromData(part.blob);
            if (image.isNull()) {
                texts.append(tr("[%1: an image (%2) that cannot be shown]").arg(part.uri, part.mimeType));
                continue;
            }
            m_image->setPixmap(QPixmap::fromImage(image));
            m_imageArea->show();
        } else if (part.text) {
            texts.append(*part.text);
        } else if (part.mimeType.startsWith(u"text/")) {
            texts.append(QString::fromUtf8(part.blob));
        } else {
            texts.append(tr("[%1: %2 bytes of %3]").arg(part.uri).arg(part.blob.size())
                             .arg(part.mimeType.isEmpty() ? tr("binary data") : part.mimeType));
        }
    }
    if (contents.isEmpty())
        texts.append(tr("(the server returned no contents)"));
    if (!texts.isEmpty()) {
        m_text->setPlainText(texts.join(u"\n\n"_s));
        m_text->show();
    }
}

void ResourcesView::clearPreview()
{
    showMessage(m_message, {});
    m_text->clear();
    m_text->hide();
    m_image->setPixmap({});
    m_imageArea->hide();
}

} // namespace Tether
