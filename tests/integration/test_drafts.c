/* stub */
#include "itest.h"
void register_drafts_tests(void) {}
