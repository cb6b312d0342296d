#ifndef CSRT_H
#define CSRT_H
#include <srt/srt.h>
#endif
