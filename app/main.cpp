#include <cstdio>
int main() { std::puts("precis " PRECIS_VERSION); return 0; }
