/* rep_cache.c --- see rep_cache.h.  (Being written.) */
#include "rep_cache.h"
