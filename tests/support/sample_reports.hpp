#pragma once
// Hand-made reports for the renderers' tests.
#include "core/report/report.hpp"

namespace cudasync::report::testing {

// One section with what a GPU run would draw: a timeline (two blocks released, one not, one that
// never arrived), litmus counts with a forbidden outcome seen, a sweep with its baseline and a
// value missing, and a measurement with samples.
Report gpu_shaped();

// A report of one section ("s") holding `t`.
Report with_table(Table t);

}  // namespace cudasync::report::testing
