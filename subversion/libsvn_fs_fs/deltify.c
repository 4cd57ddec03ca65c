/* deltify.c --- see deltify.h.  (Being written.) */
#include "deltify.h"
