#include "urlelicitationdialog.h"

#include "messagelabel.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextOption>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

// A URL of more lines than this scrolls in its box; it is never cut short.
static constexpr int UrlLinesShown = 6;
static constexpr int DialogWidth = 560;
static constexpr int DialogTextWidth = DialogWidth - 60; // less the margins and the box's frame

UrlElicitationDialog::UrlElicitationDialog(const QString &serverName, const QJsonObject &params, QWidget *parent)
    : ServerRequestDialog(serverName, params.value(u"message").toString(), parent)
    , m_url(params.value(u"url").toString(), QUrl::StrictMode)
    , m_problem(newMessageLabel(this))
    , m_open(new QPushButton(tr("&Open in browser"), this))
{
    setObjectName(u"urlElicitation"_s);
    setWindowTitle(tr("%1 asks you to open a link").arg(serverName));
    m_problem->setObjectName(u"problem"_s);
    m_open->setObjectName(u"open"_s);

    // The whole URL, as the server sent it, wrapped anywhere rather than elided: what opens is
    // what the person reads, and can copy.
    auto *url = new QPlainTextEdit(this);
    url->setObjectName(u"url"_s);
    url->setReadOnly(true);
    url->setWordWrapMode(QTextOption::WrapAnywhere);
    url->setPlainText(params.value(u"url").toString());
    url->setTabChangesFocus(true);
    url->setAccessibleName(tr("Address the server asks you to open"));
    // At least as many lines as the URL takes at the dialog's width (with one to spare, since
    // it is wrapped anywhere), up to a few; a taller dialog gives it more.
    const int textWidth = url->fontMetrics().horizontalAdvance(url->toPlainText());
    const int lines = std::clamp(textWidth / DialogTextWidth + 2, 2, UrlLinesShown);
    url->setMinimumHeight(lines * url->fontMetrics().lineSpacing() + 2 * url->frameWidth()
                          + int(url->document()->documentMargin()) * 2);

    // The host in its ASCII form: a look-alike of another name in other scripts shows as xn--….
    auto *host = new QLabel(this);
    host->setObjectName(u"host"_s);
    host->setTextFormat(Qt::PlainText);
    host->setWordWrap(true);
    host->setText(tr("It opens a page of %1 in your browser, outside Tether.")
                      .arg(m_url.host(QUrl::FullyEncoded).isEmpty() ? tr("no known host")
                                                                     : m_url.host(QUrl::FullyEncoded)));

    const bool web = m_url.isValid() && (m_url.scheme() == u"https" || m_url.scheme() == u"http");
    if (!web) {
        m_open->setEnabled(false);
        showMessage(m_problem, m_url.isValid() ? tr("Tether opens only http and https links; this one is %1.")
                                                     .arg(m_url.scheme().isEmpty() ? tr("without a scheme")
                                                                                   : m_url.scheme() + u':')
                                               : tr("This is no valid URL: %1.").arg(m_url.errorString()));
    }

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_open, QDialogButtonBox::AcceptRole);
    QPushButton *decline = buttons->addButton(tr("&Decline"), QDialogButtonBox::DestructiveRole);
    QPushButton *cancel = buttons->addButton(tr("Cancel"), QDialogButtonBox::RejectRole);
    decline->setObjectName(u"decline"_s);
    cancel->setObjectName(u"cancel"_s);
    // Return never opens a link by chance: the person chooses Open.
    for (QPushButton *button : {m_open, decline, cancel})
        button->setAutoDefault(false);
    connect(m_open, &QPushButton::clicked, this, &UrlElicitationDialog::openUrl);
    connect(decline, &QPushButton::clicked, this, [this] { answer(u"decline"_s); });
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(header());
    layout->addWidget(url, 1);
    layout->addWidget(host);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    resize(DialogWidth, minimumSizeHint().height());
    url->setFocus();
}

void UrlElicitationDialog::openUrl()
{
    if (!m_open->isEnabled())
        return;
    if (!QDesktopServices::openUrl(m_url)) {
        showMessage(m_problem, tr("The desktop could not open the link. Copy it into a browser yourself, or decline."));
        growToFit(this);
        return;
    }
    answer(u"accept"_s);
}

} // namespace Tether
