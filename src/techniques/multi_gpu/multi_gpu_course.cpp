// multi-gpu's tour stop: the GPU-to-host flag, the one part a machine with one GPU runs for real.
#include "techniques/multi_gpu/multi_gpu_course.hpp"

namespace cudasync::multi_gpu {

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "host-flag", "--iterations", "200"},
      {"Across GPUs and the host the rule of one GPU holds one level up: a release and an acquire around the "
       "flag, at a scope that holds both sides, which is now the whole system.",
       "跨 GPU、跨主机时，单个 GPU 上的规则在更高一层照样成立：在标志两边各放一个 release 和一个 acquire，"
       "作用域要同时包含两边，而现在这个作用域是整个系统。"},
      {}};
  return c;
}

}  // namespace cudasync::multi_gpu
