#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <immintrin.h>
int main(){
  size_t n=(size_t)1<<30; float*a=aligned_alloc(64,n); memset(a,1,n);
  size_t m=n/4;
  for(int th=1;th<=2;th++) for(int r=0;r<3;r++){
    double t=omp_get_wtime(); float tot=0;
    #pragma omp parallel num_threads(th) reduction(+:tot)
    { __m512 s0=_mm512_setzero_ps(),s1=s0,s2=s0,s3=s0;
      #pragma omp for
      for(size_t i=0;i<m;i+=64){ s0=_mm512_add_ps(s0,_mm512_load_ps(a+i)); s1=_mm512_add_ps(s1,_mm512_load_ps(a+i+16)); s2=_mm512_add_ps(s2,_mm512_load_ps(a+i+32)); s3=_mm512_add_ps(s3,_mm512_load_ps(a+i+48)); }
      tot+=_mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0,s1),_mm512_add_ps(s2,s3))); }
    double dt=omp_get_wtime()-t; printf("threads %d: %.1f GB/s (%g)\n",th,n/dt/1e9,tot);
  }
}
