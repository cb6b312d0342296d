#ifndef CYAML_H
#define CYAML_H
#include <yaml.h>
#endif
