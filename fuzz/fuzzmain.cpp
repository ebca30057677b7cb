// One libFuzzer target: the entry of fuzzentries.h named TETHER_FUZZ_ENTRY.
#include "fuzzentries.h"

#include "common/logging.h"

#include <QtGlobal>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace Tether::Fuzz;

static FuzzEntryFunction entry = nullptr;

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    for (const FuzzEntry &candidate : FuzzEntries) {
        if (std::strcmp(candidate.name, TETHER_FUZZ_ENTRY) == 0)
            entry = candidate.run;
    }
    if (!entry) {
        std::fprintf(stderr, "tether-fuzz: no fuzz entry named %s\n", TETHER_FUZZ_ENTRY);
        std::abort();
    }
    // Warnings about bad input are what the input is for; printing them would only slow the run.
    spdlog::set_level(spdlog::level::off);
    qInstallMessageHandler([](QtMsgType, const QMessageLogContext &, const QString &) {});
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QString broken = entry(QByteArrayView(data, qsizetype(size)));
    if (!broken.isEmpty()) {
        std::fprintf(stderr, "tether-fuzz-%s: %s\n", TETHER_FUZZ_ENTRY, qPrintable(broken));
        std::abort();
    }
    return 0;
}
