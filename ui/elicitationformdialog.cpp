#include "elicitationformdialog.h"

#include "messagelabel.h"
#include "mnemonics.h"
#include "schemaform.h"

#include <QDialogButtonBox>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

ElicitationFormDialog::ElicitationFormDialog(const QString &serverName, const QJsonObject &params, QWidget *parent)
    : ServerRequestDialog(serverName, params.value(u"message").toString(), parent)
    , m_form(new SchemaForm(params.value(u"requestedSchema").toObject(), nullptr,
                            tr("The server asks for no values: accept or decline.")))
    , m_problem(newMessageLabel(this))
{
    setObjectName(u"elicitationForm"_s);
    setWindowTitle(tr("%1 asks for information").arg(serverName));
    m_form->setObjectName(u"form"_s);
    m_problem->setObjectName(u"problem"_s);

    auto *formScroll = new QScrollArea(this);
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setFocusPolicy(Qt::NoFocus); // the fields in it take the focus
    formScroll->setWidget(m_form);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *accept = buttons->addButton(tr("&Accept"), QDialogButtonBox::AcceptRole);
    QPushButton *decline = buttons->addButton(tr("&Decline"), QDialogButtonBox::DestructiveRole);
    QPushButton *cancel = buttons->addButton(tr("Cancel"), QDialogButtonBox::RejectRole);
    accept->setObjectName(u"accept"_s);
    decline->setObjectName(u"decline"_s);
    cancel->setObjectName(u"cancel"_s);
    accept->setDefault(true);
    connect(accept, &QPushButton::clicked, this, &ElicitationFormDialog::acceptForm);
    connect(decline, &QPushButton::clicked, this, [this] { answer(u"decline"_s); });
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(header());
    layout->addWidget(formScroll, 1);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    // The form's fields get the letters the dialog leaves free.
    QString taken;
    for (const Mnemonic &mnemonic : mnemonicsIn(this))
        taken.append(mnemonic.letter);
    m_form->assignMnemonics(taken);
    resize(560, 640);
    const QStringList fields = m_form->fieldNames();
    if (QWidget *first = fields.isEmpty() ? nullptr : m_form->editor(fields.first()))
        first->setFocus();
}

void ElicitationFormDialog::acceptForm()
{
    QString error;
    const std::optional<QJsonObject> content = m_form->checkedArguments(&error);
    if (!content) {
        showMessage(m_problem, tr("Not sent: %1.").arg(error));
        growToFit(this);
        return;
    }
    answer(u"accept"_s, *content);
}

} // namespace Tether
