#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QTreeWidget;

namespace Tether {

class ServerSource;
struct ResourceContents;
struct ServerCatalog;

// The Resources tab: the selected server's resources and resource templates as last listed (its
// catalog snapshot), and a preview of one read: text as text, an image as an image.
class ResourcesView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourcesView)

public:
    explicit ResourcesView(ServerSource &manager, QWidget *parent = nullptr);
    ~ResourcesView() override;

    // Shows this server's resources; empty: none.
    void setServer(const QString &name);

private:
    void showCatalog(const ServerCatalog &catalog);
    void read();
    void showContents(const QList<ResourceContents> &contents);
    void clearPreview();

    ServerSource &m_manager;
    QString m_server;
    quint64 m_reads = 0; // reads started: only the answer to the last one is shown
    QLabel *m_status;
    QTreeWidget *m_list;
    QLineEdit *m_uri;
    QPushButton *m_read;
    QLabel *m_message;
    QPlainTextEdit *m_text;
    QLabel *m_image;
    QScrollArea *m_imageArea;
};

} // namespace Tether
