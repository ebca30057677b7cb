#include "namevalueeditor.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

NameValueEditor::NameValueEditor(const QString &namePlaceholder, const QString &valuePlaceholder, QWidget *parent)
    : QWidget(parent)
    , m_namePlaceholder(namePlaceholder)
    , m_valuePlaceholder(valuePlaceholder)
    , m_rowsLayout(new QVBoxLayout)
    , m_add(new QPushButton(tr("Add"), this))
    , m_showValues(new QCheckBox(tr("Show values"), this))
{
    // A label's mnemonic for the editor lands on its first name, or on Add while there is none;
    // Tab passes over the editor itself to its rows.
    setFocusPolicy(Qt::StrongFocus);
    setFocusProxy(m_add);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_rowsLayout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_rowsLayout);

    m_add->setObjectName(u"add"_s);
    connect(m_add, &QPushButton::clicked, this, [this] {
        addRow();
        m_rows.constLast().name->setFocus();
    });
    m_showValues->setObjectName(u"showValues"_s);
    connect(m_showValues, &QCheckBox::toggled, this, [this](bool shown) {
        for (const Row &row : std::as_const(m_rows))
            row.value->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    });
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_add);
    bar->addStretch();
    bar->addWidget(m_showValues);
    layout->addLayout(bar);
}

void NameValueEditor::setEntries(const QList<std::pair<QString, QString>> &entries)
{
    while (!m_rows.isEmpty())
        removeRow(int(m_rows.size()) - 1);
    for (const auto &[name, value] : entries)
        addRow(name, value);
}

QList<std::pair<QString, QString>> NameValueEditor::entries() const
{
    QList<std::pair<QString, QString>> result;
    for (const Row &row : m_rows) {
        if (!row.name->text().isEmpty() || !row.value->text().isEmpty())
            result.append({row.name->text(), row.value->text()});
    }
    return result;
}

void NameValueEditor::addRow(const QString &name, const QString &value)
{
    auto *widget = new QWidget(this);
    auto *layout = new QHBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *nameEdit = new QLineEdit(name, widget);
    nameEdit->setPlaceholderText(m_namePlaceholder);
    auto *valueEdit = new QLineEdit(value, widget);
    valueEdit->setPlaceholderText(m_valuePlaceholder);
    valueEdit->setEchoMode(m_showValues->isChecked() ? QLineEdit::Normal : QLineEdit::Password);
    auto *remove = new QToolButton(widget);
    remove->setText(tr("Remove"));
    remove->setToolTip(tr("Remove this row"));
    layout->addWidget(nameEdit, 2);
    layout->addWidget(valueEdit, 3);
    layout->addWidget(remove);
    m_rowsLayout->addWidget(widget);
    m_rows.append({widget, nameEdit, valueEdit});
    setFocusProxy(m_rows.constFirst().name);

    connect(nameEdit, &QLineEdit::textChanged, this, &NameValueEditor::changed);
    connect(valueEdit, &QLineEdit::textChanged, this, &NameValueEditor::changed);
    connect(remove, &QToolButton::clicked, this, [this, widget] {
        for (int row = 0; row < rowCount(); ++row) {
            if (m_rows.at(row).widget == widget) {
                removeRow(row);
                return;
            }
        }
    });
    emit changed();
}

void NameValueEditor::removeRow(int row)
{
    // Later: the click that asked for it is still being delivered to the row's button.
    QWidget *widget = m_rows.takeAt(row).widget;
    setFocusProxy(m_rows.isEmpty() ? static_cast<QWidget *>(m_add) : m_rows.constFirst().name);
    widget->hide();
    widget->deleteLater();
    emit changed();
}

} // namespace Tether
