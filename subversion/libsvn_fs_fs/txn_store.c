/* txn_store.c --- see txn_store.h.  (Being written.) */
#include "txn_store.h"
