#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n=(size_t)512<<20; int huge=atoi(argv[1]);
  for(int r=0;r<3;r++){
    void*p=mmap(0,n+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
    char*a=(char*)(((size_t)p+(2<<20)-1)&~(size_t)((2<<20)-1));
    madvise(a,n,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE);
    double t=now(); madvise(a,n,23/*MADV_POPULATE_WRITE*/); double t1=now();
    volatile double s=0; for(size_t i=0;i<n;i+=64) s+=a[i]; double t2=now();
    printf("huge=%d populate %.3f s (%.2f GB/s) read %.3f s\n",huge,t1-t,n/(t1-t)/1e9,t2-t1);
    munmap(p,n+(2<<20));
  }
}
