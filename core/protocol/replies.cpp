#include "replies.h"

namespace Tether {

ToolCallReply ToolCallReply::failure(int code, const QString &message)
{
    return {{}, JsonRpc::Error{code, message, {}}};
}

RpcReply RpcReply::failure(int code, const QString &message)
{
    return {{}, JsonRpc::Error{code, message, {}}};
}

} // namespace Tether
