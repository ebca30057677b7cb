#include "formencoding.h"

#include <QUrl>

namespace Tether {

QByteArray formEncoded(const FormFields &fields)
{
    QByteArray encoded;
    for (const auto &[key, value] : fields) {
        if (!encoded.isEmpty())
            encoded += '&';
        encoded += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    return encoded;
}

static QString formComponent(QByteArrayView text)
{
    QByteArray bytes = text.toByteArray();
    bytes.replace('+', ' ');
    return QString::fromUtf8(QByteArray::fromPercentEncoding(bytes));
}

FormFields formDecoded(QByteArrayView encoded)
{
    FormFields fields;
    const QList<QByteArray> parts = encoded.toByteArray().split('&');
    for (const QByteArray &part : parts) {
        if (part.isEmpty())
            continue;
        const QByteArrayView field(part);
        const qsizetype equals = field.indexOf('=');
        fields.append({formComponent(equals < 0 ? field : field.first(equals)),
                       equals < 0 ? QString() : formComponent(field.sliced(equals + 1))});
    }
    return fields;
}

QString formValue(const FormFields &fields, const QString &key, bool *found)
{
    for (const auto &[name, value] : fields) {
        if (name == key) {
            if (found)
                *found = true;
            return value;
        }
    }
    if (found)
        *found = false;
    return {};
}

} // namespace Tether
