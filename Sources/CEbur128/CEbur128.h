#ifndef CEBUR128_H
#define CEBUR128_H
#include <ebur128.h>
#endif
