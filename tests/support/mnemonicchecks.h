#pragma once

#include "mnemonics.h"

#include <QFormLayout>
#include <QLabel>
#include <QMap>
#include <QStringList>
#include <QWidget>

namespace Tether::Testing {

// What keeps a dialog's mnemonics (Alt+letter) from working: two on one letter, a field's label
// without one, a label that leads nowhere, or one whose field cannot take the focus.
inline QStringList mnemonicProblems(const QWidget *dialog)
{
    using namespace Qt::StringLiterals;
    QStringList problems;
    QMap<QChar, QString> owners;
    for (const Mnemonic &mnemonic : mnemonicsIn(dialog)) {
        if (owners.contains(mnemonic.letter))
            problems.append(u"\"%1\" and \"%2\" share Alt+%3"_s.arg(owners.value(mnemonic.letter), mnemonic.text,
                                                                     QString(mnemonic.letter)));
        else
            owners.insert(mnemonic.letter, mnemonic.text);
    }
    for (const QLabel *label : dialog->findChildren<QLabel *>()) {
        if (const QWidget *buddy = label->buddy()) {
            if (mnemonicOf(label->text()).isNull())
                problems.append(u"\"%1\" has no mnemonic"_s.arg(label->text()));
            if (buddy->focusPolicy() == Qt::NoFocus)
                problems.append(u"\"%1\" leads to a %2 that takes no focus"_s.arg(label->text(),
                                                                                  QString::fromLatin1(buddy->metaObject()->className())));
        }
    }
    for (const QFormLayout *form : dialog->findChildren<QFormLayout *>()) {
        for (int row = 0; row < form->rowCount(); ++row) {
            const QLayoutItem *item = form->itemAt(row, QFormLayout::LabelRole);
            const auto *label = item ? qobject_cast<const QLabel *>(item->widget()) : nullptr;
            if (label && !label->text().isEmpty() && !label->buddy())
                problems.append(u"\"%1\" labels a field it does not lead to"_s.arg(label->text()));
        }
    }
    return problems;
}

} // namespace Tether::Testing
