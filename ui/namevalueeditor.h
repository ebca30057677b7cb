#pragma once

#include <QList>
#include <QString>
#include <QWidget>

#include <utility>

class QCheckBox;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace Tether {

// Rows of name and value, for environment variables and HTTP headers. The values may be secrets:
// they are masked until "Show values" is checked.
class NameValueEditor final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NameValueEditor)

public:
    NameValueEditor(const QString &namePlaceholder, const QString &valuePlaceholder, QWidget *parent = nullptr);

    void setEntries(const QList<std::pair<QString, QString>> &entries);
    // In row order; a row with neither name nor value is left out.
    QList<std::pair<QString, QString>> entries() const;
    void addRow(const QString &name = QString(), const QString &value = QString());
    void removeRow(int row);

    int rowCount() const { return int(m_rows.size()); }
    QLineEdit *nameEdit(int row) const { return m_rows.at(row).name; }
    QLineEdit *valueEdit(int row) const { return m_rows.at(row).value; }
    QCheckBox *showValuesBox() const { return m_showValues; }

signals:
    void changed();

private:
    struct Row
    {
        QWidget *widget;
        QLineEdit *name;
        QLineEdit *value;
    };

    QString m_namePlaceholder;
    QString m_valuePlaceholder;
    QVBoxLayout *m_rowsLayout;
    QPushButton *m_add;
    QCheckBox *m_showValues;
    QList<Row> m_rows;
};

} // namespace Tether
