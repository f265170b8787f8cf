#include "bench/model/calibrate_options.h"

#include <stdexcept>

#include "bench/core/sizes.h"
#include "bench/core/cli_numbers.h"

namespace nbrcalib {

const char* calibrate_usage() {
  return "usage: mpirun -np P nbrcoll-calibrate [--out FILE] [options]\n"
         "Measures this machine for nbrcoll's cost model and prints a machine file (NBRCOLL_MACHINE=FILE,\n"
         "nbrcoll-model --machine FILE). Run it on 2 nodes (real, emulated by bench/cluster/run.sh, or\n"
         "NBRCOLL_RANKS_PER_NODE on one host) with the ranks per node and NBRCOLL_TOPO / NBRCOLL_DEVICE_MAP\n"
         "of the application: pairs of ranks are classified by nbrcoll's own plans.\n"
         "  --out FILE      also write the machine file to FILE\n"
         "  --name NAME     the machine's name in the file (default calibrated)\n"
         "  --cores N       CPU cores per node available to the ranks (default: detected; emulated nodes\n"
         "                  on one host share its cores)\n"
         "  --large BYTES   message of the rate and NIC measurements (default 4M)\n"
         "  --iters N       small-message round trips per link class (default 1000)\n"
         "  --reps N        large ping-pongs, NIC rounds and copies timed (default 7)\n"
         "  --quick         a smoke test: 1M messages, 100 round trips, 2 repetitions\n"
         "  --help, --version\n"
         "Exit status: 0 ok, 1 a measurement or the file failed, 2 bad usage.\n";
}

CalibrateOptions parse_calibrate_options(const std::vector<std::string>& args) {
  CalibrateOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--name") {
      o.name = value();
      if (o.name.empty() || o.name.find_first_of("#\n") != std::string::npos)
        throw std::invalid_argument("--name: expected a name without '#' or line breaks");
    } else if (a == "--cores") {
      o.cores = nbrbench::parse_positive(a, value());
    } else if (a == "--large") {
      o.large = nbrbench::parse_size(value());
      if (o.large == 0 || o.large > (1ULL << 30)) throw std::invalid_argument("--large: expected 1 byte to 1G");
    } else if (a == "--iters") {
      o.small_iters = static_cast<int>(nbrbench::parse_integer(a, value(), 1, 1000000));
    } else if (a == "--reps") {
      o.reps = static_cast<int>(nbrbench::parse_integer(a, value(), 1, 1000));
    } else if (a == "--quick") {
      o.large = 1024 * 1024;
      o.small_iters = 100;
      o.reps = 2;
      o.copy_bytes = 4 * 1024 * 1024;
    } else {
      throw std::invalid_argument("unknown argument '" + a + "' (see --help)");
    }
  }
  return o;
}

}  // namespace nbrcalib
