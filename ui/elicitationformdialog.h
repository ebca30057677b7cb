#pragma once

#include "serverrequestdialog.h"

class QLabel;

namespace Tether {

class SchemaForm;

// What a server asks the person in an elicitation in form mode (elicitation/create): its message
// and a form built from its requestedSchema, defaults filled in, so that a field left untouched
// sends its default. Accept sends the form's content once every field holds a valid value (each
// problem is shown under its field until then), Decline declines, closing or Cancel cancels.
class ElicitationFormDialog final : public ServerRequestDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ElicitationFormDialog)

public:
    // `params`: the request's, with "message" and "requestedSchema".
    ElicitationFormDialog(const QString &serverName, const QJsonObject &params, QWidget *parent = nullptr);

    // Accept: answers with the form's content, or says what is wrong and stays open.
    void acceptForm();

private:
    SchemaForm *m_form;
    QLabel *m_problem;
};

} // namespace Tether
