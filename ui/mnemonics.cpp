#include "mnemonics.h"

#include <QAbstractButton>
#include <QGroupBox>
#include <QLabel>

using namespace Qt::StringLiterals;

namespace Tether {

QChar mnemonicOf(const QString &text)
{
    for (qsizetype at = 0; at + 1 < text.size(); ++at) {
        if (text.at(at) != u'&')
            continue;
        if (text.at(at + 1) != u'&')
            return text.at(at + 1).toLower();
        ++at;
    }
    return {};
}

QList<Mnemonic> mnemonicsIn(const QWidget *root)
{
    QList<Mnemonic> found;
    const auto add = [&found](const QString &text) {
        if (const QChar letter = mnemonicOf(text); !letter.isNull())
            found.append({letter, text});
    };
    for (const QAbstractButton *button : root->findChildren<QAbstractButton *>())
        add(button->text());
    for (const QGroupBox *box : root->findChildren<QGroupBox *>())
        add(box->title());
    for (const QLabel *label : root->findChildren<QLabel *>()) {
        if (label->buddy())
            add(label->text());
    }
    return found;
}

QString withoutMnemonic(const QString &text)
{
    QString shown = text;
    return shown.replace(u'&', u"&&"_s);
}

QString withMnemonic(const QString &text, QString *taken)
{
    QString shown = withoutMnemonic(text);
    for (qsizetype at = 0; at < shown.size(); ++at) {
        const QChar letter = shown.at(at).toLower();
        if (!letter.isLetterOrNumber() || taken->contains(letter))
            continue;
        taken->append(letter);
        return shown.insert(at, u'&');
    }
    return shown;
}

} // namespace Tether
