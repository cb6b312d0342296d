#ifndef CMALLOC_H
#define CMALLOC_H
/* glibc's malloc tuning (mallopt M_ARENA_MAX, malloc_trim), which Swift's Glibc module leaves out. */
#include <malloc.h>
#endif
