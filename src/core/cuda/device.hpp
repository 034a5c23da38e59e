#pragma once
// Making the chosen GPU current for this process.
namespace cudasync::cuda {

// cudaSetDevice(index) and force context creation now, so start-up cost is not charged to the
// first timed kernel.
void select_device(int index);

}  // namespace cudasync::cuda
