/* merge.c --- see merge.h.  (Being written.) */
#include "merge.h"
