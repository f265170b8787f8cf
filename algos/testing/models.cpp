#include "models.h"

namespace nbrcoll::algos::testing {
namespace {

NodeModel paired(std::string name, std::vector<int> links, std::vector<int> hops) {
  NodeModel m{std::move(name), {8, std::move(links), std::move(hops)}, {}};
  for (int d = 0; d < 8; ++d) m.package.push_back(d / 2);
  return m;
}

NodeModel uniform(std::string name, int link, int hop) {
  NodeModel m{std::move(name), {8, std::vector<int>(64, 0), std::vector<int>(64, 0)}, {}};
  for (int a = 0; a < 8; ++a) {
    m.package.push_back(a);
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      m.matrices.links[static_cast<std::size_t>(a * 8 + b)] = link;
      m.matrices.hops[static_cast<std::size_t>(a * 8 + b)] = hop;
    }
  }
  return m;
}

}  // namespace

NodeModel node_model(Model model) {
  switch (model) {
    case Model::kFrontier:
      return paired("frontier",
                    {0, 4, 1, 0, 0, 0, 2, 0,  //
                     4, 0, 0, 1, 0, 1, 0, 0,  //
                     1, 0, 0, 4, 2, 0, 0, 0,  //
                     0, 1, 4, 0, 0, 0, 0, 1,  //
                     0, 0, 2, 0, 0, 4, 1, 0,  //
                     0, 1, 0, 0, 4, 0, 0, 1,  //
                     2, 0, 0, 0, 1, 0, 0, 4,  //
                     0, 0, 0, 1, 0, 1, 4, 0},
                    {0, 1, 1, 2, 2, 2, 1, 2,  //
                     1, 0, 2, 1, 2, 1, 2, 2,  //
                     1, 2, 0, 1, 1, 2, 2, 2,  //
                     2, 1, 1, 0, 2, 2, 2, 1,  //
                     2, 2, 1, 2, 0, 1, 1, 2,  //
                     2, 1, 2, 2, 1, 0, 2, 1,  //
                     1, 2, 2, 2, 1, 2, 0, 1,  //
                     2, 2, 2, 1, 2, 1, 1, 0});
    case Model::kMi250:
      return paired("mi250",
                    {0, 4, 0, 0, 2, 0, 1, 0,  //
                     4, 0, 0, 1, 0, 0, 0, 1,  //
                     0, 0, 0, 4, 1, 0, 2, 0,  //
                     0, 1, 4, 0, 0, 1, 0, 0,  //
                     2, 0, 1, 0, 0, 4, 0, 0,  //
                     0, 0, 0, 1, 4, 0, 0, 1,  //
                     1, 0, 2, 0, 0, 0, 0, 4,  //
                     0, 1, 0, 0, 0, 1, 4, 0},
                    {0, 1, 2, 2, 1, 2, 1, 2,  //
                     1, 0, 2, 1, 2, 2, 2, 1,  //
                     2, 2, 0, 1, 1, 2, 1, 2,  //
                     2, 1, 1, 0, 2, 1, 2, 2,  //
                     1, 2, 1, 2, 0, 1, 2, 2,  //
                     2, 2, 2, 1, 1, 0, 2, 1,  //
                     1, 2, 1, 2, 2, 2, 0, 1,  //
                     2, 1, 2, 2, 2, 1, 1, 0});
    case Model::kMi300x:
      return uniform("mi300x", 1, 1);
    case Model::kFlat:
      return uniform("flat", 0, 1);
  }
  return uniform("flat", 0, 1);
}

}  // namespace nbrcoll::algos::testing
