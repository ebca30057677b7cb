#include "httpheaders.h"

#include <algorithm>

namespace Tether {

static bool sameName(QByteArrayView a, QByteArrayView b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

HttpHeaders::HttpHeaders(std::initializer_list<Field> fields)
    : m_fields(fields)
{}

void HttpHeaders::append(const QByteArray &name, const QByteArray &value)
{
    m_fields.append({name, value});
}

void HttpHeaders::remove(QByteArrayView name)
{
    m_fields.removeIf([name](const Field &field) { return sameName(field.first, name); });
}

bool HttpHeaders::contains(QByteArrayView name) const
{
    return std::any_of(m_fields.cbegin(), m_fields.cend(), [name](const Field &field) { return sameName(field.first, name); });
}

QByteArray HttpHeaders::value(QByteArrayView name) const
{
    return values(name).join(", ");
}

QByteArrayList HttpHeaders::values(QByteArrayView name) const
{
    QByteArrayList found;
    for (const Field &field : m_fields) {
        if (sameName(field.first, name))
            found.append(field.second);
    }
    return found;
}

bool HttpHeaders::hasToken(QByteArrayView name, QByteArrayView token) const
{
    for (const Field &field : m_fields) {
        if (!sameName(field.first, name))
            continue;
        QByteArrayView rest(field.second);
        while (!rest.isEmpty()) {
            const qsizetype comma = rest.indexOf(',');
            const QByteArrayView item = comma < 0 ? rest : rest.first(comma);
            if (sameName(item.trimmed(), token))
                return true;
            rest = comma < 0 ? QByteArrayView() : rest.sliced(comma + 1);
        }
    }
    return false;
}

} // namespace Tether
