#include "emptyhint.h"

#include <QAbstractItemView>
#include <QCoreApplication>
#include <QEvent>
#include <QPainter>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Paints the hint over the viewport after the view has painted its (empty) contents.
class EmptyHintPainter final : public QObject
{
public:
    EmptyHintPainter(QAbstractItemView *view)
        : QObject(view)
        , m_view(view)
    {
        setObjectName(u"emptyHint"_s);
        view->viewport()->installEventFilter(this);
    }

    void setText(const QString &text)
    {
        m_text = text;
        m_view->setAccessibleDescription(text);
        m_view->viewport()->update();
    }

    QString shown() const
    {
        const QAbstractItemModel *model = m_view->model();
        return model && model->rowCount(m_view->rootIndex()) > 0 ? QString() : m_text;
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::Paint || watched != m_view->viewport())
            return false;
        const QString text = shown();
        if (text.isEmpty())
            return false;
        // The view paints first, then the hint on top of its empty area.
        m_view->viewport()->removeEventFilter(this);
        QCoreApplication::sendEvent(watched, event);
        m_view->viewport()->installEventFilter(this);
        QPainter painter(m_view->viewport());
        painter.setPen(m_view->palette().color(QPalette::PlaceholderText));
        const int margin = m_view->fontMetrics().height();
        painter.drawText(m_view->viewport()->rect().adjusted(margin, margin, -margin, -margin),
                         Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, text);
        return true;
    }

private:
    QAbstractItemView *m_view;
    QString m_text;
};

EmptyHintPainter *painterOf(const QAbstractItemView *view)
{
    return view->findChild<EmptyHintPainter *>(u"emptyHint"_s, Qt::FindDirectChildrenOnly);
}

} // namespace

void setEmptyHint(QAbstractItemView *view, const QString &text)
{
    EmptyHintPainter *painter = painterOf(view);
    if (!painter)
        painter = new EmptyHintPainter(view);
    painter->setText(text);
}

QString emptyHintShown(const QAbstractItemView *view)
{
    const EmptyHintPainter *painter = painterOf(view);
    return painter ? painter->shown() : QString();
}

} // namespace Tether
