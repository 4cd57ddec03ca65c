/* commit.c --- see commit.h.  (Being written.) */
#include "commit.h"
