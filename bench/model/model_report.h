// Output of nbrcoll-model: a table per node count on stdout and the CSV.
#pragma once

#include <ostream>
#include <string>

#include "bench/model/model_graph.h"
#include "bench/model/model_options.h"
#include "bench/model/model_predict.h"

namespace nbrmodel {

// One node count's results.
struct Block {
  int nodes = 0;
  GraphSummary graph;
  Prediction prediction;
};

// Where `auto` changes its choice, at powers of two up to the last model
// size: "linear, leader from 4K, aggregated from 1M".
std::string choice_summary(const nbrcoll::algos::CostTable& table);

// The lines above all tables: what is predicted, with what.
void print_heading(std::ostream& out, const ModelOptions& o, const std::string& machine);
// "## 16 nodes x 8 ranks ...", then a line per size and variant and one for auto.
void print_block(std::ostream& out, const ModelOptions& o, const Block& b);

inline constexpr const char* kModelCsvHeader =
    "node,machine,pattern,params,op,nodes,ranks_per_node,ranks,edges,size_bytes,variant,time_us,"
    "speedup_vs_linear,net_messages,net_bytes,auto_pick,argmin";
// A row per size and variant, and one "auto" row (the chosen variant's numbers).
void write_model_csv(std::ostream& out, const ModelOptions& o, const std::string& machine, const Block& b);

}  // namespace nbrmodel
