#pragma once

#include <algorithm>
#include <vector>

namespace Tether::Bench {

// The value below which `fraction` of the samples lie (nearest rank); 0 for no samples.
inline double percentile(std::vector<double> values, double fraction)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values.at(std::min(values.size() - 1, size_t(fraction * double(values.size() - 1) + 0.5)));
}

} // namespace Tether::Bench
