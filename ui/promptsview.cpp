#include "promptsview.h"

#include "catalogtabs.h"
#include "messagelabel.h"

#include "manager/serversource.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

PromptsView::PromptsView(ServerSource &manager, QWidget *parent)
    : QWidget(parent)
    , m_manager(manager)
    , m_status(new QLabel(this))
    , m_list(new QTreeWidget(this))
    , m_description(new QLabel(this))
    , m_form(new QFormLayout)
    , m_get(new QPushButton(tr("&Get prompt"), this))
    , m_message(newMessageLabel(this))
    , m_messages(new QPlainTextEdit(this))
{
    m_status->setObjectName(u"promptsStatus"_s);
    m_list->setObjectName(u"promptList"_s);
    m_list->setHeaderLabels({tr("Name"), tr("Arguments"), tr("Description")});
    m_description->setObjectName(u"promptDescription"_s);
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::PlainText);
    m_get->setObjectName(u"getPrompt"_s);
    m_get->setEnabled(false);
    m_message->setObjectName(u"promptMessage"_s);
    m_messages->setObjectName(u"promptMessages"_s);
    m_messages->setReadOnly(true);

    QVBoxLayout *detail = layOutCatalogView(this, m_status, m_list);
    detail->addWidget(m_description);
    detail->addLayout(m_form);
    detail->addWidget(m_get, 0, Qt::AlignLeft);
    detail->addWidget(m_message);
    detail->addWidget(m_messages, 1);
    setServer({});

    connect(&m_manager, &ServerSource::catalogChanged, this, [this](const QString &name) {
        if (name == m_server)
            showCatalog(m_manager.catalog(name));
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        choosePrompt(item ? item->text(0) : QString());
    });
    connect(m_get, &QPushButton::clicked, this, &PromptsView::get);
}

PromptsView::~PromptsView() = default;

void PromptsView::setServer(const QString &name)
{
    if (name == m_server && !name.isEmpty())
        return;
    m_server = name;
    ++m_gets; // an answer for the previous server is not shown
    m_list->clear();
    showCatalog(name.isEmpty() ? ServerCatalog{} : m_manager.catalog(name));
}

static QString argumentNames(const PromptDefinition &prompt)
{
    QStringList names;
    for (const PromptArgument &argument : prompt.arguments)
        names.append(argument.required ? argument.name + u'*' : argument.name);
    return names.join(u", "_s);
}

void PromptsView::showCatalog(const ServerCatalog &catalog)
{
    const QString current = m_chosen ? m_chosen->name : QString();
    m_prompts = catalog.prompts;
    {
        const QSignalBlocker blocker(m_list);
        m_list->clear();
        for (const PromptDefinition &prompt : std::as_const(m_prompts)) {
            auto *item = new QTreeWidgetItem(m_list, {prompt.name, argumentNames(prompt),
                                                      prompt.description.section(u'\n', 0, 0)});
            item->setToolTip(2, plainToolTip(prompt.description));
            if (prompt.name == current)
                m_list->setCurrentItem(item);
        }
    }
    // The form stays as the user filled it while the prompt is still offered, and as it is.
    const auto still = std::find_if(m_prompts.cbegin(), m_prompts.cend(),
                                    [&current](const PromptDefinition &prompt) { return prompt.name == current; });
    if (still == m_prompts.cend() || !m_chosen || !(*still == *m_chosen))
        choosePrompt(still == m_prompts.cend() ? QString() : current);

    const QString counted = (m_prompts.size() == 1 ? tr("1 prompt") : tr("%1 prompts").arg(m_prompts.size()))
                            + tr("; arguments marked * are required");
    m_status->setText(catalogStatus({!m_server.isEmpty(), catalog.offersPrompts, catalog.promptsListed, catalog.promptsError},
                                    tr("prompts"), counted));
}

void PromptsView::choosePrompt(const QString &name)
{
    m_chosen.reset();
    for (const PromptDefinition &prompt : std::as_const(m_prompts)) {
        if (prompt.name == name)
            m_chosen = prompt;
    }
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_fields.clear();
    ++m_gets;
    showMessage(m_message, {});
    m_messages->clear();
    m_description->setText(m_chosen ? m_chosen->description : QString());
    m_get->setEnabled(m_chosen.has_value());
    if (!m_chosen)
        return;
    for (const PromptArgument &argument : std::as_const(m_chosen->arguments)) {
        auto *field = new QLineEdit(this);
        field->setObjectName(u"promptArgument_"_s + argument.name);
        field->setPlaceholderText(argument.required ? tr("required") : tr("optional"));
        field->setToolTip(plainToolTip(argument.description));
        connect(field, &QLineEdit::returnPressed, this, &PromptsView::get);
        const QString label = argument.title.isEmpty() ? argument.name : argument.title;
        m_form->addRow(label + (argument.required ? u" *:"_s : u":"_s), field);
        m_fields.append(field);
    }
}

void PromptsView::get()
{
    if (!m_chosen || m_server.isEmpty())
        return;
    QJsonObject arguments;
    for (qsizetype i = 0; i < m_fields.size(); ++i) {
        const PromptArgument &argument = m_chosen->arguments.at(i);
        const QString value = m_fields.at(i)->text();
        if (value.isEmpty() && argument.required) {
            showMessage(m_message, tr("'%1' is required: fill it in, then get the prompt.").arg(argument.name));
            m_fields.at(i)->setFocus();
            return;
        }
        // An optional argument left empty is left out, not sent as "".
        if (!value.isEmpty())
            arguments.insert(argument.name, value);
    }
    const quint64 getNumber = ++m_gets;
    showMessage(m_message, {});
    m_messages->setPlainText(tr("Getting %1…").arg(m_chosen->name));
    const QPointer<PromptsView> guard(this);
    m_manager.getPrompt(m_server, m_chosen->name, arguments, [this, guard, getNumber](const PromptReply &reply) {
        if (!guard || getNumber != m_gets)
            return;
        if (reply.error) {
            m_messages->clear();
            showMessage(m_message, reply.error->message);
            return;
        }
        const QString messages = renderPromptMessages(reply.result.messages);
        m_messages->setPlainText(reply.result.description.isEmpty() ? messages
                                                                    : reply.result.description + u"\n\n"_s + messages);
    });
}

} // namespace Tether
