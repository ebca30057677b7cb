#include "welcomebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace Tether {

WelcomeBanner::WelcomeBanner(QMenu *importMenu, QWidget *parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
{
    setObjectName(u"welcome"_s);
    setFrameShape(QFrame::StyledPanel);
    // A tint of the selection colour: it reads as information in light and dark palettes.
    setAutoFillBackground(true);
    QPalette tinted = palette();
    QColor tint = tinted.color(QPalette::Highlight);
    tint.setAlphaF(0.18);
    tinted.setColor(QPalette::Window, tint);
    setPalette(tinted);

    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    auto *add = new QPushButton(tr("&Add a server…"), this);
    add->setObjectName(u"welcomeAdd"_s);
    auto *import = new QPushButton(tr("&Import from…"), this);
    import->setObjectName(u"welcomeImport"_s);
    import->setAccessibleDescription(tr("Import the servers Claude Desktop, Cursor or VS Code use"));
    import->setMenu(importMenu);
    connect(add, &QPushButton::clicked, this, &WelcomeBanner::addRequested);

    auto *layout = new QHBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(add);
    layout->addWidget(import);
    hide();
}

void WelcomeBanner::showFor(bool demo, qsizetype servers)
{
    if (demo) {
        m_text->setText(tr("These are Tether's demo servers: \"demo\" works, \"flaky\" crashes every 20 s and comes "
                           "back, \"broken\" never starts. Add the MCP servers your AI tools use, or import them; "
                           "remove the demo servers whenever you like."));
    } else if (servers == 0) {
        m_text->setText(tr("No servers yet. Add the MCP servers your AI tools use, or import the ones Claude "
                           "Desktop, Cursor or VS Code already have."));
    }
    setAccessibleName(m_text->text());
    setVisible(demo || servers == 0);
}

QString WelcomeBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace Tether
