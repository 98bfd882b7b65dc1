// cuda_cplx.cuh - complex entries of either precision to and from complex
// double in the kernels of solver/ (private): the vector kernels and the
// GPU factorization store single or double entries and do their scalar
// arithmetic in double.
#ifndef EM_SOLVER_CUDA_CPLX_CUH
#define EM_SOLVER_CUDA_CPLX_CUH

#include <cuComplex.h>

__device__ __forceinline__ double2 em_sv_to_z(double2 a) {
  return a;
}
__device__ __forceinline__ double2 em_sv_to_z(float2 a) {
  return make_double2(a.x, a.y);
}
template <typename V>
__device__ __forceinline__ V em_sv_from_z(double2 a);
template <>
__device__ __forceinline__ double2 em_sv_from_z<double2>(double2 a) {
  return a;
}
template <>
__device__ __forceinline__ float2 em_sv_from_z<float2>(double2 a) {
  return make_float2((float)a.x, (float)a.y);
}

#endif
