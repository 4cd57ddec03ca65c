/* txn.c --- see txn.h.  (Being written.) */
#include "txn.h"
