/* tree_mutate.c --- see tree_mutate.h.  (Being written.) */
#include "tree_mutate.h"
